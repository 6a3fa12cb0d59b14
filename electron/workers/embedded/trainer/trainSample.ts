/**
 * The trainer's input: one judged turn (docs/internals.md, "The trainer").
 *
 * Validated at the boundary so that a bad sample — a NaN log-prob, lists of
 * different lengths, an empty response — is refused with a message that
 * names the sample and the field, before any gradient is computed and long
 * before a candidate could be written.
 */
import { z } from 'zod';

const tokenId = z.int().min(0);
// zod 4's z.number() already refuses NaN and ±Infinity; the message says why it matters here.
// A log-prob is ≤ 0; the small allowance absorbs float32 rounding in the engine.
const logprob = z
  .number({ error: 'must be a finite number (a NaN or infinite log-prob poisons the gradient)' })
  .max(1e-3, 'a log-prob cannot be positive');

export const trainSampleSchema = z
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
  .superRefine((s, ctx) => {
    const n = s.responseIds.length;
    const sameLength = (field: 'forced' | 'logprobs' | 'topIds' | 'topLogprobs' | 'teacherTopLogprobs', length: number | undefined) => {
      if (length !== undefined && length !== n) {
        ctx.addIssue({ code: 'custom', path: [field], message: `has ${length} entries but responseIds has ${n}` });
      }
    };
    sameLength('forced', s.forced.length);
    sameLength('logprobs', s.logprobs.length);
    sameLength('topIds', s.topIds.length);
    sameLength('topLogprobs', s.topLogprobs.length);
    sameLength('teacherTopLogprobs', s.teacherTopLogprobs?.length);
    const k = s.topIds[0]?.length ?? 0;
    for (let t = 0; t < Math.min(n, s.topIds.length); t += 1) {
      if (s.topIds[t]?.length !== k) {
        ctx.addIssue({ code: 'custom', path: ['topIds', t], message: `has ${s.topIds[t]?.length} ids; position 0 has K = ${k}` });
        break;
      }
      if (s.topLogprobs[t] !== undefined && s.topLogprobs[t]?.length !== k) {
        ctx.addIssue({ code: 'custom', path: ['topLogprobs', t], message: `has ${s.topLogprobs[t]?.length} log-probs, K is ${k}` });
        break;
      }
      if (s.teacherTopLogprobs?.[t] !== undefined && s.teacherTopLogprobs[t]?.length !== k) {
        ctx.addIssue({ code: 'custom', path: ['teacherTopLogprobs', t], message: `has ${s.teacherTopLogprobs[t]?.length} log-probs, K is ${k}` });
        break;
      }
    }
    if (s.forced.length === n && s.forced.every(Boolean)) {
      ctx.addIssue({ code: 'custom', path: ['forced'], message: 'every response token is forced: nothing is left to train on' });
    }
    if (s.hintedPromptIds !== undefined && s.teacherTopLogprobs !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['teacherTopLogprobs'], message: 'give the teacher either as hintedPromptIds or as teacherTopLogprobs, not both' });
    }
    if (s.reward === 0 && s.hintedPromptIds === undefined && s.teacherTopLogprobs === undefined) {
      ctx.addIssue({ code: 'custom', path: ['reward'], message: 'reward 0 and no teacher: the turn carries no training signal (DESIGN §1 dispatch: it does not train)' });
    }
  });

export type TrainSample = z.infer<typeof trainSampleSchema>;

/** A batch the trainer refuses; nothing was computed and no candidate is produced. */
export class TrainerInputError extends Error {
  override readonly name = 'TrainerInputError';
}

function describeSample(raw: unknown, index: number): string {
  if (typeof raw === 'object' && raw !== null) {
    const { sessionId, turn } = raw as Record<string, unknown>;
    if (typeof sessionId === 'string') return `sample ${index} (session ${sessionId}, turn ${String(turn)})`;
  }
  return `sample ${index}`;
}

/** Parses a batch or throws TrainerInputError naming every bad sample and field. */
export function parseTrainBatch(raw: unknown, vocabSize?: number): TrainSample[] {
  if (!Array.isArray(raw) || raw.length === 0) throw new TrainerInputError('a training batch must be a non-empty array of samples');
  const problems: string[] = [];
  const samples: TrainSample[] = [];
  raw.forEach((item, index) => {
    const parsed = trainSampleSchema.safeParse(item);
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
  if (problems.length > 0) {
    const shown = problems.slice(0, 8).join('\n  ');
    const more = problems.length > 8 ? `\n  … and ${problems.length - 8} more` : '';
    throw new TrainerInputError(`the training batch was refused, no candidate produced:\n  ${shown}${more}`);
  }
  return samples;
}
