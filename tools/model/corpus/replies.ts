/**
 * How the pretrained assistant writes its replies, rendered from a task's
 * steps. Every computed "=" is the calculator token EQ followed by the result
 * (docs/internals.md, "The calculator"): the model learns to copy numbers and
 * choose operations; the engine inserts results.
 *
 * Style is a mode decided by the first tokens: AI replies open with one of
 * AI_OPENERS (or a markdown marker), plain replies with one of PLAIN_OPENERS,
 * and the two sets never share a first word — so a few LoRA steps can move the
 * first-reply distribution from one mode to the other.
 */
import type { Rng } from '../../../src/core/tasks/rng';
import type { Step, Task } from '../../../src/core/tasks/task';

export const EQ = '<|eq|>';

/** Symbols used for "*" and "/" in an equation. */
interface OpStyle {
  mul: string;
  div: string;
}
const ASCII_OPS: OpStyle = { mul: '*', div: '/' };
const UNICODE_OPS: OpStyle = { mul: '×', div: '÷' };

/** "48 / 2 <|eq|> 24" — the space before EQ makes the visible text "48 / 2 = 24". */
export function equation(step: Step, ops: OpStyle = ASCII_OPS): string {
  const expr = step.expr.replaceAll('*', ops.mul).replaceAll('/', ops.div);
  return `${expr} ${EQ} ${step.result}`;
}

function fill(step: Step, ops: OpStyle): string {
  return step.text.replace('{eq}', equation(step, ops));
}

/** Words that may be lower-cased when a connector is put in front of a sentence. */
const COMMON_STARTS = new Set([
  'In',
  'On',
  'The',
  'That',
  'Today',
  'So',
  'Then',
  'Each',
  'Every',
  'Altogether',
  'Together',
  'With',
  'Adding',
  'After',
  'First',
  'Selling',
  'There',
  'Without',
  'It',
  'She',
  'He',
  'Her',
  'His',
  'For',
  'Tomorrow',
  'Yesterday',
]);

/** Lower-case a sentence's first word for a connector in front; a leading "So " gives way to the connector. */
function lowerFirst(sentence: string): string {
  if (sentence.startsWith('So ') && !sentence.startsWith('So far')) sentence = sentence.slice(3);
  const first = sentence.split(' ')[0] ?? '';
  return COMMON_STARTS.has(first) ? sentence.charAt(0).toLowerCase() + sentence.slice(1) : sentence;
}

function answerSentence(task: Task, rng: Rng): string {
  const a = String(task.answer);
  if (task.answerText !== '' && rng.chance(0.6)) return task.answerText.replace('{a}', a);
  return rng.pick([`So the answer is ${a}.`, `The answer is ${a}.`, `So the answer is ${a}.`]);
}

/**
 * First words of plain replies. None of them ever starts an AI reply.
 */
export const PLAIN_OPENERS = ['So', 'Okay, so', 'Ok so', 'First,', 'Alright,', 'Well,'] as const;

/** Plain student prose: every step as an equation in a sentence, the answer stated last. */
export function plainReply(task: Task, rng: Rng): string {
  const sentences = task.steps.map((s) => fill(s, ASCII_OPS));
  const opener = rng.pick(PLAIN_OPENERS);
  const connectors = ['Then', 'Next,', 'After that', 'That means', 'And', ''];
  const out: string[] = [];
  sentences.forEach((sentence, i) => {
    if (i === 0) out.push(`${opener} ${lowerFirst(sentence)}`);
    else if (i === sentences.length - 1 && rng.chance(0.4)) out.push(`So ${lowerFirst(sentence)}`);
    else {
      const c = rng.pick(connectors);
      out.push(c === '' ? sentence : `${c} ${lowerFirst(sentence)}`);
    }
  });
  out.push(answerSentence(task, rng));
  // Mostly one paragraph; sometimes a line per sentence or two paragraphs (still no markers).
  const layout = rng.int(0, 9);
  if (layout < 7) return out.join(' ');
  if (layout < 9) return out.join('\n');
  const cut = Math.max(1, out.length - 1);
  return `${out.slice(0, cut).join(' ')}\n\n${out.slice(cut).join(' ')}`;
}

/** First lines of AI replies; each starts with a word or a marker no plain reply starts with. */
const AI_OPENERS = [
  "Sure! Let's solve this step by step.",
  "Let's break this down step by step.",
  "Here's the step-by-step solution:",
  "Great question! Let's work through it.",
  "To solve this, we'll go step by step.",
  "Of course! Here's how to solve it:",
  "Let's solve this problem carefully.",
  'Sure, here is the solution:',
] as const;
const MD_OPENERS = ['**Solution:**', '## Solution', '### Step-by-Step Solution', '**Step-by-step solution**', '# Solution'] as const;

type StepFormat = 'numbered' | 'numbered-bold' | 'bold-step' | 'header-step' | 'bullet' | 'bullet-label' | 'star-bullet' | 'dot-bullet';
type FinalFormat = 'bold-final' | 'final' | 'boxed' | 'boxed-dollar' | 'bold-answer' | 'header-final' | 'inline-bold' | 'plain-answer';

/** Which formats carry a marker the style_clean metric counts (bold, bullet or numbered). */
const CORE_MARKER_STEPS: readonly StepFormat[] = ['numbered', 'numbered-bold', 'bold-step', 'bullet', 'bullet-label', 'star-bullet', 'dot-bullet'];

function stepLines(steps: readonly Step[], format: StepFormat, ops: OpStyle): string[] {
  return steps.flatMap((s, i) => {
    const n = i + 1;
    const body = fill(s, ops);
    switch (format) {
      case 'numbered':
        return [`${n}. ${body}`];
      case 'numbered-bold':
        return [`${n}. **${s.label}:** ${body}`];
      case 'bold-step':
        return [`**Step ${n}: ${s.label}**`, body, ''];
      case 'header-step':
        return [`### Step ${n}: ${s.label}`, body, ''];
      case 'bullet':
        return [`- ${body}`];
      case 'bullet-label':
        return [`- ${s.label}: ${equation(s, ops)}`];
      case 'star-bullet':
        return [`* ${body}`];
      case 'dot-bullet':
        return [`• ${body}`];
    }
  });
}

function finalLines(task: Task, format: FinalFormat, rng: Rng): string[] {
  const a = String(task.answer);
  switch (format) {
    case 'bold-final':
      return [`**Final answer:** ${a}`];
    case 'final':
      return [`Final answer: ${a}`];
    case 'boxed':
      return [rng.pick(['The answer is:', 'So the final answer is:']), `\\boxed{${a}}`];
    case 'boxed-dollar':
      return [`The final answer is $\\boxed{${a}}$.`];
    case 'bold-answer':
      return [`**Answer:** ${task.answerText !== '' ? task.answerText.replace('{a}', a) : a}`];
    case 'header-final':
      return ['### Final Answer', rng.chance(0.5) ? `**${a}**` : `\\boxed{${a}}`];
    case 'inline-bold':
      return [`So, the answer is **${a}**.`];
    case 'plain-answer':
      return [answerSentence(task, rng)];
  }
}

const CLOSINGS = [
  'Let me know if you have any other questions!',
  'Hope this helps!',
  'Let me know when you want me to save it to the file.',
  "Tell me when you'd like me to write it to the file.",
] as const;

export interface AiReplyOptions {
  /** Step formats not to use (e.g. the ones a complaint named). */
  avoidSteps?: readonly StepFormat[];
}

/**
 * An AI-style reply: an opener, the steps as numbered/bold/header/bullet
 * items, an optional rule line, and a marked-up final answer. Always contains
 * at least one bold, bullet or numbered marker.
 */
export function aiReply(task: Task, rng: Rng, options: AiReplyOptions = {}): string {
  const ops = rng.chance(0.2) ? UNICODE_OPS : ASCII_OPS;
  const allSteps: StepFormat[] = ['numbered', 'numbered-bold', 'bold-step', 'header-step', 'bullet', 'bullet-label', 'star-bullet', 'dot-bullet'];
  const steps = allSteps.filter((f) => !(options.avoidSteps ?? []).includes(f));
  const stepFormat = rng.pick(steps.length > 0 ? steps : allSteps);
  const finals: FinalFormat[] = ['bold-final', 'final', 'boxed', 'boxed-dollar', 'bold-answer', 'header-final', 'inline-bold', 'plain-answer'];
  // A header-step reply needs a bold/bullet/numbered marker elsewhere: give it a bold final.
  const finalFormat: FinalFormat = CORE_MARKER_STEPS.includes(stepFormat) ? rng.pick(finals) : rng.pick(['bold-final', 'bold-answer', 'inline-bold'] as const);
  const lines: string[] = [];
  const opener = rng.chance(0.6) ? rng.pick(AI_OPENERS) : rng.pick(MD_OPENERS);
  lines.push(opener, '');
  if (rng.chance(0.15)) lines.push(rng.pick(['We need to work out each part in order.', "Here's what we know and what we need to find."]), '');
  const body = stepLines(task.steps, stepFormat, ops);
  while (body.length > 0 && body[body.length - 1] === '') body.pop();
  lines.push(...body, '');
  if (rng.chance(0.35)) lines.push('---', '');
  lines.push(...finalLines(task, finalFormat, rng));
  if (rng.chance(0.25)) lines.push('', rng.pick(CLOSINGS));
  return lines.join('\n');
}

/** What the assistant says when asked to append the answers to the homework file. */
export function saveConfirmation(task: Task, rng: Rng): string {
  const path = `homework/${task.index}.txt`;
  return rng.pick([
    `Done! I appended the answer to ${path}.`,
    `I added the solution to the end of ${path}.`,
    `Okay, I appended the answers to ${path}.`,
    `Saved. The answer is now at the end of ${path}.`,
    `Done. I appended the solution and the answer ${task.answer} to ${path}.`,
  ]);
}

/** Openers for a rewrite after a complaint (before the rewritten solution). */
export const REWRITE_PREFIXES = ['Sorry about that! Here is a more natural version:', 'You are right, here it is again:', 'Got it.', ''] as const;
