// The PRM and hint-judge prompts for an LLM judge, and the parsing of what it
// writes. The protocol follows OpenClaw-RL (Gen-Verse/OpenClaw-RL,
// openclaw-rl/openclaw_api_server.py and openclaw-opd/openclaw_opd_api_server.py):
// the judge sees only the assistant's output and the next state; the PRM ends
// with \boxed{1}, \boxed{-1} or \boxed{0} and the last boxed score counts; the
// hint judge decides \boxed{1} (the next state carries hindsight) or
// \boxed{-1}, and with \boxed{1} writes a 1-3 sentence hint between
// [HINT_START] and [HINT_END]. The wording here is ours.

import type { ChatMessage } from './teacherInput';
import type { PrmScore } from './turnJudge';
import type { HintCandidate } from './votes';

export const HINT_START = '[HINT_START]';
export const HINT_END = '[HINT_END]';

const PRM_SYSTEM = [
  'You are a process reward model. You judge one turn of a conversation between a user and an AI assistant.',
  "You are shown the assistant's output and the next state: the user's reply or the environment's feedback that came right after it.",
  'Judge the output by that next state:',
  '- \\boxed{1} if the next state shows the output helped: the user accepts it, moves on, or asks for the next step;',
  '- \\boxed{-1} if the next state shows it did not: the user corrects it, complains, asks for a redo, or an error came back;',
  '- \\boxed{0} if the next state gives no clear signal either way.',
  'Reason briefly, then finish with exactly one score in \\boxed{}.',
].join('\n');

const HINT_SYSTEM = [
  'You extract hindsight from one turn of a conversation between a user and an AI assistant.',
  "You are shown the assistant's output at turn t and the next state at turn t+1 (the user's reply or the environment's feedback).",
  'Decide whether the next state reveals something that would have made the output at turn t better.',
  'Rules for your answer:',
  '- Finish with exactly one decision: \\boxed{1} if it does, \\boxed{-1} if it does not.',
  `- With \\boxed{1}, also write a hint of one to three sentences between ${HINT_START} and ${HINT_END}: concrete, actionable, addressed to the assistant, saying what to do differently.`,
  '- With \\boxed{-1}, write no hint.',
].join('\n');

function turnText(assistantOutput: string, nextState: string): string {
  return `Assistant output (turn t):\n${assistantOutput}\n\nNext state (turn t+1):\n${nextState}`;
}

export function prmMessages(assistantOutput: string, nextState: string): ChatMessage[] {
  return [
    { role: 'system', content: PRM_SYSTEM },
    { role: 'user', content: `${turnText(assistantOutput, nextState)}\n\nScore the assistant output: \\boxed{1}, \\boxed{-1} or \\boxed{0}.` },
  ];
}

export function hintMessages(assistantOutput: string, nextState: string): ChatMessage[] {
  return [
    { role: 'system', content: HINT_SYSTEM },
    { role: 'user', content: `${turnText(assistantOutput, nextState)}\n\nGive your decision and, if it is \\boxed{1}, the hint.` },
  ];
}

/** A thinking model's draft is not its answer: read only what follows the last </think>. */
function answerPart(text: string): string {
  const end = text.lastIndexOf('</think>');
  if (end !== -1) return text.slice(end + '</think>'.length);
  // Cut off while still thinking (e.g. at max_tokens): there is no answer yet.
  return text.includes('<think>') ? '' : text;
}

function lastBoxedInteger(text: string): number | null {
  const all = [...answerPart(text).matchAll(/\\boxed\{\s*([-+]?\d+)\s*\}/gu)];
  const last = all.at(-1)?.[1];
  return last === undefined ? null : Number(last);
}

/** One PRM vote from what the judge wrote: the last \boxed{} score, null if none or out of range. */
export function parsePrmVote(text: string): PrmScore | null {
  const v = lastBoxedInteger(text);
  return v === 1 || v === 0 || v === -1 ? v : null;
}

/** One hint vote: the decision (last \boxed{1} or \boxed{-1}) and the last [HINT_START]…[HINT_END] text. */
export function parseHintVote(text: string): HintCandidate {
  const v = lastBoxedInteger(text);
  const decision = v === 1 || v === -1 ? v : null;
  const blocks = [...answerPart(text).matchAll(/\[HINT_START\]([\s\S]*?)\[HINT_END\]/gu)];
  const hint = blocks.at(-1)?.[1]?.trim() ?? '';
  return { decision, hint: hint === '' ? null : hint };
}
