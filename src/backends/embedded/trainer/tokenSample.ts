/**
 * The embedded trainer's own input: one judged turn in token ids, prompts
 * already templated (the lab's model-agnostic train sample,
 * src/core/protocols/trainSample.ts, after toTokenSamples.ts; the golden
 * vectors are written in this form).
 *
 * Validated so that a bad sample — a NaN log-prob, lists of different
 * lengths, an empty response — is refused with a message that names the
 * sample and the field, before any gradient is computed and long before a
 * candidate could be written.
 */
import { z } from 'zod';
import {
  addResponseIssues,
  describeSample,
  logprobSchema as logprob,
  refusedBatchMessage,
  tokenIdSchema as tokenId,
  TrainerInputError,
} from '../../../core/protocols/trainSample';

export { TrainerInputError };

export const tokenSampleSchema = z
  .strictObject({
    /** Where the turn came from, for the candidate's manifest and for errors. */
    sessionId: z.string().min(1),
    turn: z.int().min(0),
    /** The chat-templated prompt up to and including `<|assistant|>`. */
    promptIds: z.array(tokenId).min(1),
    /** The reply's tokens, forced calculator tokens included. */
    responseIds: z.array(tokenId).min(1, 'the response is empty: there is nothing to train on'),
    /** true for tokens the calculator forced: excluded from every loss term. */
    forced: z.array(z.boolean()),
    /** Old (generation-time) log-prob of each response token. */
    logprobs: z.array(logprob),
    /** The old top-K ids and log-probs at each response position (K ≥ 1, the same K throughout). */
    topIds: z.array(z.array(tokenId).min(1)),
    topLogprobs: z.array(z.array(logprob).min(1)),
    /** The PRM's verdict: +1, −1 or 0 (0 = OPD only). */
    reward: z.number().min(-1).max(1),
    /** OPD teacher, given as the hinted prompt (the trainer scores it with the frozen base)… */
    hintedPromptIds: z.array(tokenId).min(1).optional(),
    /** …or as teacher log-probs at the old top-K ids, scored elsewhere. */
    teacherTopLogprobs: z.array(z.array(logprob).min(1)).optional(),
  })
  .superRefine((s, ctx) => addResponseIssues(s, s.hintedPromptIds !== undefined, ctx));

export type TokenSample = z.infer<typeof tokenSampleSchema>;

/** Parses a batch or throws TrainerInputError naming every bad sample and field. */
export function parseTokenBatch(raw: unknown, vocabSize?: number): TokenSample[] {
  if (!Array.isArray(raw) || raw.length === 0) throw new TrainerInputError('a training batch must be a non-empty array of samples');
  const problems: string[] = [];
  const samples: TokenSample[] = [];
  raw.forEach((item, index) => {
    const parsed = tokenSampleSchema.safeParse(item);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(sample)';
        problems.push(`${describeSample(item, index)}: ${where} ${issue.message}`);
      }
      return;
    }
    if (vocabSize !== undefined) {
      const s = parsed.data;
      const lists = [s.promptIds, s.responseIds, s.hintedPromptIds ?? [], ...s.topIds];
      const bad = lists.flat().find((id) => id >= vocabSize);
      if (bad !== undefined) problems.push(`${describeSample(item, index)}: token id ${bad} is outside the vocabulary (${vocabSize})`);
    }
    samples.push(parsed.data);
  });
  if (problems.length > 0) throw new TrainerInputError(refusedBatchMessage(problems));
  return samples;
}
