// Every event a run's journal holds. The journal is the run's source of
// truth: the gate's candidate states, the serving pointer's history, which
// sessions are done and which samples the trainer has consumed are all
// derived from it, so a resumed run continues exactly where it stopped.
import { z } from 'zod';
import { BAD_CANDIDATE_KINDS, CANDIDATE_ID_PATTERN, CONFIRMERS, GATED_METRICS, REJECTION_CODES } from '../gate/candidateVocabulary';
import { probeMetricsSchema } from '../gate/probeMetrics';
import { servingPointerSchema } from './servingPointer';
import { sha256Schema } from '../weights/weightIds';

const sha256 = sha256Schema;
const candidateId = z.string().regex(CANDIDATE_ID_PATTERN);
/** A version id: `base` or `v<step>-<8 hex>` (step 0 for a candidate that no trainer step made). */
const versionId = servingPointerSchema.shape.version;

export const rejectionSchema = z.strictObject({
  code: z.enum(REJECTION_CODES),
  detail: z.string(),
  metric: z.enum(GATED_METRICS).optional(),
});
export type Rejection = z.infer<typeof rejectionSchema>;

export const candidateSourceSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('trainer'), step: z.int().positive() }),
  z.strictObject({ kind: z.literal('inject'), badKind: z.enum(BAD_CANDIDATE_KINDS) }),
  z.strictObject({ kind: z.literal('file'), path: z.string() }),
]);
export type CandidateSource = z.infer<typeof candidateSourceSchema>;

const base = { seq: z.int().min(0), at: z.iso.datetime() };

export const journalEventSchema = z.discriminatedUnion('type', [
  z.strictObject({
    ...base,
    type: z.literal('run-started'),
    runId: z.string(),
    recipeFile: z.string(),
    recipe: z.unknown().describe('the validated recipe, with the command-line overrides applied'),
    baseVersion: servingPointerSchema,
    live: z.literal(true).optional().describe("live mode: its sessions are outside clients' conversations, never the recipe's tasks"),
  }),
  z.strictObject({ ...base, type: z.literal('run-resumed'), pid: z.int() }),
  // A person's pause: no session starts until the run continues (the gate and the trainer go on).
  // Journaled so that the session time and the ETA leave the pause out, in any process that reads the journal.
  z.strictObject({ ...base, type: z.literal('run-paused') }),
  z.strictObject({ ...base, type: z.literal('run-continued') }),
  z.strictObject({
    ...base,
    type: z.literal('session-completed'),
    session: z.int().min(0),
    taskId: z.string(),
    accepted: z.boolean(),
    turns: z.int().min(0),
    versions: z.array(versionId).describe('the version that produced each assistant turn'),
    transcript: z.string(),
    samples: z
      .strictObject({ file: z.string(), sha256, count: z.int().min(0) })
      .describe('the judged turns, each with the version that produced it, as the trainer gets them'),
    curve: z.record(z.string(), z.number()).describe("this session's own curve columns (rolling ones are derived)"),
    timing: z
      .strictObject({
        waitSeconds: z.number().min(0).describe('waiting for the trainer step in flight before the session started'),
        generationSeconds: z.number().min(0),
        studentSeconds: z.number().min(0),
        judgeSeconds: z.number().min(0),
        sampleSeconds: z.number().min(0),
      })
      .optional()
      .describe("where the session's wall time went (absent in runs made before it was recorded)"),
  }),
  z.strictObject({
    ...base,
    type: z.literal('trainer-step'),
    step: z.int().positive(),
    samplesThrough: z.int().positive().describe('judged turns consumed so far, counted over the sessions in order: the next step starts after them'),
    samples: z.int().positive().describe('judged turns the step trained on: its batch and, with a window, the newest ones before it'),
    sessionIds: z.array(z.string()).optional().describe('the sessions whose judged turns the step trained on (absent in runs made before it was recorded)'),
    stats: z.record(z.string(), z.number()),
    candidate: z.strictObject({ version: versionId, sha256, blob: z.string() }).describe('stored, then staged to the gate'),
  }),
  z.strictObject({
    ...base,
    type: z.literal('trainer-step-refused'),
    samplesThrough: z.int().positive(),
    samples: z.int().positive(),
    code: z.string(),
    message: z.string(),
  }),
  z.strictObject({
    ...base,
    type: z.literal('candidate-staged'),
    id: candidateId,
    version: versionId,
    sha256: sha256.describe('the hash the manifest claims'),
    blob: z.string().describe('path of the blob in the weight store, relative to the run folder'),
    source: candidateSourceSchema,
  }),
  z.strictObject({ ...base, type: z.literal('candidate-verified'), id: candidateId, evidence: z.record(z.string(), z.unknown()) }),
  z.strictObject({ ...base, type: z.literal('candidate-probing'), id: candidateId, round: z.int().positive(), seed: z.int().min(0) }),
  z.strictObject({
    ...base,
    type: z.literal('probe-round'),
    id: candidateId,
    round: z.int().positive(),
    seed: z.int().min(0),
    passed: z.boolean(),
    failing: z.array(z.string()),
    candidate: probeMetricsSchema,
    serving: probeMetricsSchema.extend({ version: versionId }),
    replies: z.string().describe('file with both sides’ probe replies and their markers'),
  }),
  z.strictObject({ ...base, type: z.literal('candidate-awaiting-confirm'), id: candidateId }),
  z.strictObject({ ...base, type: z.literal('candidate-confirmed'), id: candidateId, by: z.enum(CONFIRMERS) }),
  z.strictObject({
    ...base,
    type: z.literal('candidate-promoted'),
    id: candidateId,
    pointer: servingPointerSchema,
    previous: servingPointerSchema,
  }),
  z.strictObject({
    ...base,
    type: z.literal('candidate-rejected'),
    id: candidateId,
    reason: rejectionSchema,
    pointer: servingPointerSchema.describe('the serving pointer, unchanged, at rejection'),
  }),
  z.strictObject({ ...base, type: z.literal('candidate-superseded'), id: candidateId, by: candidateId }),
  z.strictObject({
    ...base,
    type: z.literal('serving-rolled-back'),
    pointer: servingPointerSchema,
    previous: servingPointerSchema,
    by: z.enum(['person', 'gate']).describe("'gate': serving failed to load a promoted version, so the gate put the previous one back"),
    reason: z.string().optional(),
  }),
  z.strictObject({
    ...base,
    type: z.literal('session-excluded'),
    session: z.int().min(0),
    reason: z.string(),
    trainedIn: z
      .array(versionId)
      .describe('candidates a step made after training on the session before it was excluded: a person may reject them or roll back'),
  }),
  z.strictObject({ ...base, type: z.literal('run-completed'), wallSeconds: z.number() }),
  z.strictObject({
    ...base,
    type: z.literal('run-failed'),
    error: z.string().describe('why the sessions stopped; a resume continues where the journal ends'),
  }),
]);

export type JournalEvent = z.infer<typeof journalEventSchema>;
export type JournalEventType = JournalEvent['type'];
/** An event as a caller writes it: the journal stamps seq and time. */
export type NewJournalEvent = JournalEvent extends infer E ? (E extends JournalEvent ? Omit<E, 'seq' | 'at'> : never) : never;
