/**
 * The train sample: one judged turn as every trainer receives it
 * (docs/internals.md, "Seams"). Model-agnostic: the conversation travels as
 * messages and the hint as text; only the response is in token ids — the
 * engine's own, which no tokenizer could rebuild from text exactly.
 *
 * How a trainer turns it into sequences:
 * - **prompt** = its chat template applied to `messages` with the generation
 *   prompt appended (the same template the engine generated with), or
 *   `promptIds` when the engine reported them;
 * - **sequence** = prompt ++ `responseIds`; the loss covers response
 *   positions only (prompt tokens never count), minus `forced` ones;
 * - **OPD teacher** (when `hint` is present) = the frozen base model on
 *   the same conversation with `"\n\n" + hint` (the hint trimmed) appended to
 *   the content of the last user message (src/core/judge/teacherInput.ts), scored at
 *   the student's old top-K ids — or `teacherTopLogprobs` when given.
 *
 * Validated at the boundary so that a bad sample — a NaN log-prob, lists of
 * different lengths, an empty response — is refused with a message that
 * names the sample and the field, before any gradient is computed and long
 * before a candidate could be written (`parseTrainBatch`).
 */
import { z } from 'zod';
import { chatMessageSchema } from './engineProtocol';

export const tokenIdSchema = z.int().min(0);
const tokenId = tokenIdSchema;
// zod 4's z.number() already refuses NaN and ±Infinity; the message says why it matters here.
// A log-prob is ≤ 0; the small allowance absorbs float32 rounding in the engine.
export const logprobSchema = z
  .number({ error: 'must be a finite number (a NaN or infinite log-prob poisons the gradient)' })
  .max(1e-3, 'a log-prob cannot be positive');
const logprob = logprobSchema;

/** The per-response-token fields every sample form carries (the lab's here, a trainer's own). */
type ResponseFields = {
  responseIds: readonly number[];
  forced?: readonly boolean[] | undefined;
  logprobs: readonly number[];
  topIds: readonly (readonly number[])[];
  topLogprobs: readonly (readonly number[])[];
  teacherTopLogprobs?: readonly (readonly number[])[] | undefined;
  reward: number;
};

/**
 * The checks that cross fields: one entry per response token in every list,
 * the same K at every position, something left to train, a teacher when the
 * reward is 0 (`hasTeacher`: a hint or hinted prompt ids).
 */
export function addResponseIssues(s: ResponseFields, hasTeacher: boolean, ctx: z.RefinementCtx): void {
  const n = s.responseIds.length;
  const sameLength = (field: 'forced' | 'logprobs' | 'topIds' | 'topLogprobs' | 'teacherTopLogprobs', length: number | undefined) => {
    if (length !== undefined && length !== n) {
      ctx.addIssue({ code: 'custom', path: [field], message: `has ${length} entries but responseIds has ${n}` });
    }
  };
  sameLength('forced', s.forced?.length);
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
  if (s.forced !== undefined && s.forced.length === n && s.forced.every(Boolean)) {
    ctx.addIssue({ code: 'custom', path: ['forced'], message: 'every response token is forced: nothing is left to train on' });
  }
  if (hasTeacher && s.teacherTopLogprobs !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['teacherTopLogprobs'], message: 'give the teacher either as a hint or as teacherTopLogprobs, not both' });
  }
  if (s.reward === 0 && !hasTeacher && s.teacherTopLogprobs === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['reward'],
      message: 'reward 0 and no teacher: the turn carries no training signal (docs/design.md, How a judged turn trains: it does not train)',
    });
  }
}

export const trainSampleSchema = z
  .strictObject({
    /** Where the turn came from (`<run>/session-<k>`), for the candidate's manifest (dataRange) and for errors. */
    sessionId: z.string().min(1),
    /** The turn's index in its session (0 = the first, scored reply). */
    turn: z.int().min(0),
    /**
     * The conversation the reply answers: every message before the reply, in
     * order, ending with the user message it answers — exactly what the
     * engine was given (no system prompt is added anywhere).
     */
    messages: z.array(chatMessageSchema).min(1),
    /**
     * The hint judge's accepted hint (docs/design.md, Hindsight-guided OPD). Present
     * = the turn trains the OPD term against the hinted frozen base; absent =
     * no OPD teacher (RL only), unless `teacherTopLogprobs` is given.
     */
    hint: z.string().min(1).optional(),
    /**
     * Optional: the prompt ids the engine itself built from `messages` (its
     * template + generation prompt; `GenerateResult.promptIds`). A trainer
     * may use them instead of templating `messages`; they must be what its
     * own template gives. The embedded engine does not report them.
     */
    promptIds: z.array(tokenId).min(1).optional(),
    /**
     * The engine's response token ids (`GenerateResult.tokenIds`), verbatim:
     * every emitted token, the final end-of-turn token included when the
     * reply stopped (not when it hit max_tokens), forced tokens included.
     */
    responseIds: z.array(tokenId).min(1, 'the response is empty: there is nothing to train on'),
    /**
     * The old (generation-time) log-prob of each response token under the
     * version that generated it, in nats (natural log, ≤ 0): raw, i.e.
     * log_softmax of the logits at temperature 1 with no top-k/top-p, read at
     * the emitted token — not the sampling distribution's.
     */
    logprobs: z.array(logprob),
    /** The K best ids of that same raw distribution at each response position, best first (K ≥ 1, the same K throughout; the recipe's logprobs_top_k). */
    topIds: z.array(z.array(tokenId).min(1)),
    /** Their raw log-probs, aligned with topIds. */
    topLogprobs: z.array(z.array(logprob).min(1)),
    /**
     * Embedded engine only, optional: true for calculator tokens the engine
     * forced (not sampled); they are excluded from every loss term. Absent =
     * no token was forced (every other engine).
     */
    forced: z.array(z.boolean()).optional(),
    /** The PRM's verdict on the turn: +1, −1 or 0 (0 = OPD only). The PG advantage is this number, broadcast over the turn's tokens. */
    reward: z.number().min(-1).max(1),
    /** Alternative OPD teacher: the teacher's raw log-probs at the old top-K ids, [T][K], scored elsewhere. Not with `hint`. */
    teacherTopLogprobs: z.array(z.array(logprob).min(1)).optional(),
  })
  .superRefine((s, ctx) => {
    if (s.messages.at(-1)?.role !== 'user') {
      ctx.addIssue({ code: 'custom', path: ['messages'], message: 'must end with the user message the reply answers' });
    }
    addResponseIssues(s, s.hint !== undefined, ctx);
  });

export type TrainSample = z.infer<typeof trainSampleSchema>;

/** A batch the trainer refuses; nothing was computed and no candidate is produced. */
export class TrainerInputError extends Error {
  override readonly name = 'TrainerInputError';
}

/** `sample 3 (session run/session-4, turn 1)`: how an error names a sample. */
export function describeSample(raw: unknown, index: number): string {
  if (typeof raw === 'object' && raw !== null) {
    const { sessionId, turn } = raw as Record<string, unknown>;
    if (typeof sessionId === 'string') return `sample ${index} (session ${sessionId}, turn ${String(turn)})`;
  }
  return `sample ${index}`;
}

/** Joins the problems of a refused batch into one message (the first eight, and how many more). */
export function refusedBatchMessage(problems: readonly string[]): string {
  const shown = problems.slice(0, 8).join('\n  ');
  const more = problems.length > 8 ? `\n  … and ${problems.length - 8} more` : '';
  return `the training batch was refused, no candidate produced:\n  ${shown}${more}`;
}

/** Parses a batch of train samples or throws TrainerInputError naming every bad sample and field. */
export function parseTrainBatch(raw: unknown): TrainSample[] {
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
    samples.push(parsed.data);
  });
  if (problems.length > 0) throw new TrainerInputError(refusedBatchMessage(problems));
  return samples;
}
