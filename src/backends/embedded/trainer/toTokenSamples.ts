/**
 * The lab's train samples (src/core/protocols/trainSample.ts: messages,
 * hint, the engine's response ids) as the embedded trainer's token samples:
 * the prompt through this model's chat template with the generation prompt
 * (or the engine's own prompt ids when it sent them), and the OPD teacher's
 * prompt as the same conversation with the hint appended to the last user
 * message (src/core/judge/teacherInput.ts) — the ids the engine saw.
 */
import { appendHintToLastUser } from '../../../core/judge/teacherInput';
import { parseTrainBatch } from '../../../core/protocols/trainSample';
import type { Tokenizer } from '../engine/tokenizer';
import type { TokenSample } from './tokenSample';

/** Validates a batch (TrainerInputError naming sample and field) and tokenizes it; the token samples are validated again by the trainer. */
export function toTokenSamples(raw: unknown, tokenizer: Tokenizer): TokenSample[] {
  return parseTrainBatch(raw).map((s) => ({
    sessionId: s.sessionId,
    turn: s.turn,
    promptIds: s.promptIds ?? tokenizer.encodeChat(s.messages),
    responseIds: s.responseIds,
    // Only the embedded engine forces tokens; absent = none was.
    forced: s.forced ?? s.responseIds.map(() => false),
    logprobs: s.logprobs,
    topIds: s.topIds,
    topLogprobs: s.topLogprobs,
    reward: s.reward,
    ...(s.hint !== undefined ? { hintedPromptIds: tokenizer.encodeChat(appendHintToLastUser(s.messages, s.hint)) } : {}),
    ...(s.teacherTopLogprobs !== undefined ? { teacherTopLogprobs: s.teacherTopLogprobs } : {}),
  }));
}
