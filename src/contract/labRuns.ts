/**
 * The run domain of the desktop: choose a recipe, start / stop / resume a run
 * of it, watch it (sessions, curve, trainer steps, the gate), and ask the
 * gate for a person's decisions. The renderer only *asks*: every action is a
 * request the lab core's release gate decides on; nothing here can move the
 * serving pointer by itself (only promote and rollback write it).
 *
 * The enumerations are the core's own (pure modules, so the renderer may
 * reach them through here); the run's phases are the desktop's (runPhases.ts).
 */
import { z } from 'zod';
import type { MethodTable } from './define';
import { CurveRow, LoadedRun } from './runs';
import { BAD_CANDIDATE_KINDS, CANDIDATE_ID_PATTERN, CANDIDATE_STATES, CONFIRMERS, GATED_METRICS, REJECTION_CODES } from '../core/gate/candidateVocabulary';
import { probeMetricsSchema, type ProbeMetrics } from '../core/gate/probeMetrics';
import { CONFIRM_MODES } from '../core/recipe/recipeSchema';
import { MARKER_KINDS, REJECT_REASONS } from '../core/judge/criterion';
import { TRAINING_MODES } from '../core/judge/trainDispatch';
import { servedVersionSchema, sha256Schema } from '../core/weights/weightIds';
import { LiveHeaderView, LiveSessionView, SessionTrainingView } from './liveViews';
import { RUN_PHASES } from './runPhases';

export {
  BAD_CANDIDATE_KINDS,
  CANDIDATE_STATES,
  GATED_METRICS,
  REJECTION_CODES,
  type BadCandidateKind,
  type CandidateStateName,
  type GatedMetric,
} from '../core/gate/candidateVocabulary';
export { MARKER_KINDS, REJECT_REASONS, type MarkerKind } from '../core/judge/criterion';
export { TRAINING_MODES } from '../core/judge/trainDispatch';

const sha256 = sha256Schema;
/** `base`, or `v<step>-<first 8 hex of the sha256>`. */
const versionId = servedVersionSchema;
const candidateId = z.string().regex(CANDIDATE_ID_PATTERN);
const at = z.iso.datetime();
const count = z.int().nonnegative();

/** A run folder's name inside the lab's runs folder: no separators, no leading dot (never a path). */
export const RUN_ID_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
const runId = z.string().regex(RUN_ID_PATTERN, 'a run folder name (letters, digits, . _ -)');
/** A recipe file's name inside the lab's recipes folder. */
const recipeId = z.string().regex(/^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}\.ya?ml$/, 'a recipe file name (*.yaml)');

export const ServingPointerView = z.strictObject({ version: versionId, sha256 });
export type ServingPointerView = z.infer<typeof ServingPointerView>;

export const Span = z.strictObject({ start: count, end: count });
export const MarkerSpan = z.strictObject({ kind: z.enum(MARKER_KINDS), start: count, end: count });
export type MarkerSpan = z.infer<typeof MarkerSpan>;

/** The pass criterion's verdict on a reply, with offsets (UTF-16, [start, end)) for highlighting. */
export const VerdictView = z.strictObject({
  accepted: z.boolean(),
  reason: z.enum(REJECT_REASONS).nullable(),
  failures: z.array(z.enum(REJECT_REASONS)),
  markers: z.array(MarkerSpan),
  shownWork: z.array(Span),
  goldAt: Span.nullable(),
});
export type VerdictView = z.infer<typeof VerdictView>;

export const RecipeChoice = z.strictObject({
  /** The file name inside the recipes folder; what `labRuns.start` takes. */
  id: recipeId,
  name: z.string(),
  description: z.string(),
  sessions: z.int().positive(),
  seed: count,
  confirm: z.enum(CONFIRM_MODES),
  rounds: z.int().positive(),
  batchTurns: z.int().positive(),
  /** Judged turns each step trains on: its batch and the newest before it (= batchTurns without a window). */
  windowTurns: z.int().positive(),
  /**
   * The served context live mode may change (policy.max_model_len, checked against the model when it starts):
   * `tokens` is the recipe's (null: its engine's default); null when the policy serves its model's own (embedded).
   */
  servedContext: z.strictObject({ tokens: z.int().positive().nullable() }).nullable(),
  isDefault: z.boolean(),
  /** Whether it can run on this machine; when not, `reasons` says why in words a person can act on. */
  runnable: z.boolean(),
  reasons: z.array(z.string()),
});
export type RecipeChoice = z.infer<typeof RecipeChoice>;

/** The PRM's reward for a judged turn (+1 progress, −1 correction, 0 ambiguous). */
const Reward = z.union([z.literal(-1), z.literal(0), z.literal(1)]);
/** The hint judge's hindsight hint for a turn, and whether it was accepted (long enough to teach). */
export const HintView = z.strictObject({ text: z.string(), accepted: z.boolean() });
export type HintView = z.infer<typeof HintView>;

/** One session: its curve row, and its first reply (the scored one) with the criterion's verdict. */
export const SessionView = z.strictObject({
  session: count,
  at,
  taskId: z.string(),
  question: z.string(),
  /** The gold answer; null when the transcript could not be read. */
  gold: z.number().nullable(),
  accepted: z.boolean(),
  turns: count,
  /** The version that produced the first reply (every sample records its version). */
  version: versionId,
  firstReply: z.string(),
  verdict: VerdictView,
  /** The student's reaction to the first reply (the next state it was judged from). */
  reaction: z.string().nullable(),
  /** The first reply's judgment from that reaction: the PRM's reward and the hint (null when it was not judged). */
  reward: Reward.nullable(),
  hint: HintView.nullable(),
  curve: CurveRow,
  /** Its judged turns, the samples it gave, the trainer steps that used them, and whether a person excluded it. */
  training: SessionTrainingView,
  /** A live-mode session (an outside client's conversation); null for a session of the recipe's tasks. */
  live: LiveSessionView.nullable(),
});
export type SessionView = z.infer<typeof SessionView>;

/** One turn of a session's conversation, as the run wrote it: the student's message, the reply, how it was judged. */
export const TranscriptTurnView = z.strictObject({
  turn: count,
  user: z.string(),
  reply: z.string(),
  version: versionId,
  finishReason: z.string(),
  completionTokens: count,
  /** The student's reaction (the next state); null after the last allowed reply. */
  nextState: z.string().nullable(),
  /** The criterion's verdict on this reply, with offsets: every violation where it occurs. */
  verdict: VerdictView.nullable(),
  reward: Reward.nullable(),
  hint: HintView.nullable(),
  training: z.enum(TRAINING_MODES).nullable(),
  /** Why a turn that should have trained gave no sample. */
  skipped: z.string().nullable(),
});
export type TranscriptTurnView = z.infer<typeof TranscriptTurnView>;

/** A whole session: every turn, not only the scored first reply. */
export const TranscriptView = z.strictObject({
  session: count,
  taskId: z.string(),
  question: z.string(),
  gold: z.number(),
  accepted: z.boolean(),
  /** How it ended: the student said HOMEWORK_DONE, the turn budget ran out, or the context filled (null: not recorded). */
  endedBy: z.enum(['done', 'max-turns', 'context-full']).nullable(),
  turns: z.array(TranscriptTurnView),
});
export type TranscriptView = z.infer<typeof TranscriptView>;

export const TrainerStepView = z.strictObject({
  step: z.int().positive(),
  at,
  samples: z.int().positive(),
  samplesThrough: z.int().positive(),
  loss: z.number().nullable(),
  pg: z.number().nullable(),
  opd: z.number().nullable(),
  kl: z.number().nullable(),
  klCoef: z.number().nullable(),
  gradNorm: z.number().nullable(),
  updateNorm: z.number().nullable(),
  tokens: z.number().nullable(),
  seconds: z.number().nullable(),
  version: versionId,
  sha256,
  /** Sessions completed when the step was journaled. */
  afterSessions: count,
});
export type TrainerStepView = z.infer<typeof TrainerStepView>;

export const RefusedStepView = z.strictObject({ at, samples: z.int().positive(), samplesThrough: z.int().positive(), code: z.string(), message: z.string() });
export type RefusedStepView = z.infer<typeof RefusedStepView>;

/** The journal's own shape: a round shown is a round journaled. */
export const ProbeMetricsView = probeMetricsSchema;
export type ProbeMetricsView = ProbeMetrics;

/** One gated metric of one round: the candidate against serving and the limit the recipe's margin (or floor) sets. */
export const RoundCheck = z.strictObject({
  metric: z.enum(GATED_METRICS),
  candidate: z.number(),
  serving: z.number(),
  /** `min`: the candidate must be at least `limit`; `max`: at most. */
  direction: z.enum(['min', 'max']),
  limit: z.number(),
  margin: z.number(),
  floor: z.number().nullable(),
  ok: z.boolean(),
});
export type RoundCheck = z.infer<typeof RoundCheck>;

export const RoundView = z.strictObject({
  round: z.int().positive(),
  seed: count,
  passed: z.boolean(),
  failing: z.array(z.string()),
  candidate: ProbeMetricsView,
  serving: ProbeMetricsView.extend({ version: versionId }),
  checks: z.array(RoundCheck),
});
export type RoundView = z.infer<typeof RoundView>;

export const CandidateSourceView = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('trainer'), step: z.int().positive() }),
  z.strictObject({ kind: z.literal('inject'), badKind: z.enum(BAD_CANDIDATE_KINDS) }),
  z.strictObject({ kind: z.literal('file'), path: z.string() }),
]);
export type CandidateSourceView = z.infer<typeof CandidateSourceView>;

export const CandidateView = z.strictObject({
  id: candidateId,
  version: versionId,
  sha256,
  source: CandidateSourceView,
  state: z.enum(CANDIDATE_STATES),
  /** The round being probed now (state probing), else null. */
  probingRound: z.int().positive().nullable(),
  passedRounds: count,
  roundsRequired: z.int().positive(),
  reason: z.strictObject({ code: z.enum(REJECTION_CODES), detail: z.string(), metric: z.enum(GATED_METRICS).nullable() }).nullable(),
  supersededBy: candidateId.nullable(),
  confirmedBy: z.enum(CONFIRMERS).nullable(),
  updateNorm: z.number().nullable(),
  maxUpdateNorm: z.number(),
  rounds: z.array(RoundView),
  stagedAt: at,
  /** When it passed verify; null if it never did (rejected there, or superseded first). */
  verifiedAt: at.nullable(),
  decidedAt: at.nullable(),
  stagedAfterSessions: count,
  /** What served when it was staged, and when it was decided (rejected: unchanged; promoted: itself). */
  servingAtStage: ServingPointerView,
  servingAtDecision: ServingPointerView.nullable(),
  /**
   * A trainer candidate past verify that the gate holds while another awaits
   * a person (the waiting-candidate rule): it is probed after that decision.
   */
  heldForPerson: z.boolean(),
});
export type CandidateView = z.infer<typeof CandidateView>;

export const INJECTION_STATES = ['queued', 'building', 'staged', 'failed'] as const;

/**
 * A person's request to inject a bad candidate. Building one can take a
 * minute (the trained kinds run real gradient steps), so it runs in the
 * background, one at a time, the rest queued in order: queued → building →
 * staged (as `candidate`; the gate takes it from there) | failed (`error`).
 */
export const InjectionView = z.strictObject({
  id: z.string().regex(/^i\d+$/),
  kind: z.enum(BAD_CANDIDATE_KINDS),
  state: z.enum(INJECTION_STATES),
  /** Requests ahead of it (0 = next), while queued; else null. */
  queuePosition: count.nullable(),
  requestedAt: at,
  startedAt: at.nullable(),
  finishedAt: at.nullable(),
  candidate: candidateId.nullable(),
  error: z.string().nullable(),
  servingBefore: ServingPointerView,
});
export type InjectionView = z.infer<typeof InjectionView>;

/** At most this many injection requests wait behind the one being built; more are refused with the reason. */
export const MAX_QUEUED_INJECTIONS = 5;

/**
 * How far the run has got, for the progress line: what the journal says
 * (the renderer adds the time since `sessionSince` while a session runs).
 */
export const RunProgressView = z.strictObject({
  /** Seconds the run's completed sessions ran (pauses, and anything after the run ended, left out). */
  activeSeconds: z.number().nonnegative(),
  /** Mean seconds per session over the newest sessions of this process's stretch (at most 10, pauses left out); null before two sessions finished in it. */
  secondsPerSession: z.number().nonnegative().nullable(),
  /** When the session in progress started counting (after the one before it, the process start or the end of a pause); null when none runs. */
  sessionSince: at.nullable(),
  /** The optimizer step the trainer is working on (a full batch of judged turns is waiting for it), or null. */
  trainerStep: z.strictObject({ step: z.int().positive(), turns: z.int().positive(), since: at }).nullable(),
});
export type RunProgressView = z.infer<typeof RunProgressView>;

/** A change of what serves: a promotion, or a rollback (by a person, or by the gate when serving failed to load). */
export const ServingChangeView = z.strictObject({
  at,
  kind: z.enum(['promoted', 'rolled-back']),
  from: ServingPointerView,
  to: ServingPointerView,
  by: z.enum(['auto', 'person', 'gate']),
  candidate: candidateId.nullable(),
  reason: z.string().nullable(),
  afterSessions: count,
});
export type ServingChangeView = z.infer<typeof ServingChangeView>;

export const RunHeader = z.strictObject({
  runId: z.string(),
  runDir: z.string(),
  recipeName: z.string(),
  recipeFile: z.string(),
  seed: count,
  confirm: z.enum(CONFIRM_MODES),
  rounds: z.int().positive(),
  batchTurns: z.int().positive(),
  windowTurns: z.int().positive(),
  klCoef: z.number(),
  maxUpdateNorm: z.number(),
  phase: z.enum(RUN_PHASES),
  /** Why the run failed or cannot be acted on; null when all is well. */
  error: z.string().nullable(),
  /** Set when another process (e.g. `gatelab run`) holds the run: the desktop only watches it. */
  heldBy: z.int().positive().nullable(),
  sessions: z.strictObject({
    planned: z.int().positive(),
    completed: count,
    accepted: count,
    adaptationSession: count.nullable(),
    /** The session in progress (the next one), null when none runs. */
    running: count.nullable(),
  }),
  serving: ServingPointerView,
  /** Every version that has served, oldest first: the rollback targets. */
  servedVersions: z.array(ServingPointerView),
  startedAt: at,
  lastEventAt: at,
  journalEvents: count,
  progress: RunProgressView,
  /** This window's injection requests on this run, oldest first (the newest finished ones are kept). */
  injections: z.array(InjectionView),
  /** Live mode's part (where clients connect, the conversations not yet journaled); null for a run of the recipe's tasks. */
  live: LiveHeaderView.nullable(),
  /**
   * Updates sent for this run view so far: a patch carries n, the next n + 1.
   * A renderer that sees a gap (a dropped socket) fetches `labRuns.current` again.
   */
  update: count,
});
export type RunHeader = z.infer<typeof RunHeader>;

/** Everything the run view shows, at one instant. */
export const RunView = z.strictObject({
  header: RunHeader,
  sessions: z.array(SessionView),
  trainerSteps: z.array(TrainerStepView),
  refusedSteps: z.array(RefusedStepView),
  candidates: z.array(CandidateView),
  servingHistory: z.array(ServingChangeView),
});
export type RunView = z.infer<typeof RunView>;

/**
 * What changed since the last update (the `labRuns.changed` event). Keyed
 * collections carry only new or changed items (merge by key); `reset` says
 * the run on screen was replaced and the lists are complete.
 */
export const RunPatch = z.strictObject({
  reset: z.boolean(),
  header: RunHeader,
  sessions: z.array(SessionView),
  trainerSteps: z.array(TrainerStepView),
  refusedSteps: z.array(RefusedStepView),
  candidates: z.array(CandidateView),
  servingHistory: z.array(ServingChangeView).nullable(),
});
export type RunPatch = z.infer<typeof RunPatch>;

export const RUN_FOLDER_STATUSES = ['running', 'stopped', 'complete', 'failed'] as const;
export type RunFolderStatus = (typeof RUN_FOLDER_STATUSES)[number];

export const RunFolderInfo = z.strictObject({
  runId,
  recipeName: z.string(),
  /**
   * running: a process holds it (this lab or `gatelab run`); complete: every
   * session ran; failed: its sessions stopped on an error (`failure` says
   * which); stopped: stopped or interrupted — Resume continues it.
   */
  status: z.enum(RUN_FOLDER_STATUSES),
  failure: z.string().nullable(),
  startedAt: at,
  sessionsCompleted: count,
  sessionsPlanned: z.int().positive(),
  completed: z.boolean(),
  serving: versionId,
  awaitingConfirm: z.array(candidateId),
  /** A process that holds the run right now (this lab, or `gatelab run`), or null. */
  heldBy: z.int().positive().nullable(),
  /** A live-mode run (outside clients' conversations; continued by live mode, not resumed). */
  live: z.boolean(),
});
export type RunFolderInfo = z.infer<typeof RunFolderInfo>;

/** A candidate that passed every probe round and waits for a person's decision, in one of the runs the lab follows. */
export const AwaitingCandidateView = z.strictObject({
  id: candidateId,
  version: versionId,
  passedRounds: count,
  /** The version its probe rounds compared it with. */
  probedAgainst: versionId,
  /** When it started waiting. */
  since: at,
});
export type AwaitingCandidateView = z.infer<typeof AwaitingCandidateView>;

/**
 * Every candidate waiting for a person across the runs the lab follows (the
 * runs folder and every folder opened here), so that none is missed whichever
 * run is on screen. Runs with none waiting are left out; the oldest wait first.
 */
export const AwaitingView = z.strictObject({
  total: count,
  runs: z.array(
    z.strictObject({
      runId: z.string(),
      /** The run folder, to open it by path (it may live outside the runs folder). */
      runDir: z.string(),
      recipeName: z.string(),
      candidates: z.array(AwaitingCandidateView).min(1),
    }),
  ),
});
export type AwaitingView = z.infer<typeof AwaitingView>;

/**
 * The run whose sessions this lab runs (at most one), on screen or not: it
 * keeps running while the person looks at another run, and the top bar names
 * it everywhere so it is one click away. Null when this lab runs none.
 */
export const RunningRunView = z.strictObject({
  runId: z.string(),
  runDir: z.string(),
  recipeName: z.string(),
  phase: z.enum(RUN_PHASES),
  sessionsCompleted: count,
  sessionsPlanned: z.int().positive(),
  /** Live mode: sessions are outside conversations, so `sessionsPlanned` means nothing. */
  live: z.boolean(),
});
export type RunningRunView = z.infer<typeof RunningRunView>;

export const RunningView = z.strictObject({ run: RunningRunView.nullable() });
export type RunningView = z.infer<typeof RunningView>;

/** A person asked, outside the page (an OS notification clicked), to see a waiting candidate: the page opens its run and shows it. */
export const ReviewRequest = z.strictObject({ runDir: z.string(), candidate: candidateId });
export type ReviewRequest = z.infer<typeof ReviewRequest>;

export const ProbeReplyView = z.strictObject({
  text: z.string(),
  /** `settled`: the probe stopped decoding it once its verdict could no longer change. */
  finishReason: z.enum(['stop', 'length', 'settled']),
  completionTokens: count,
  verdict: VerdictView,
});
export type ProbeReplyView = z.infer<typeof ProbeReplyView>;

export const ProbePair = z.strictObject({
  taskId: z.string(),
  gold: z.number(),
  seed: count,
  candidate: ProbeReplyView,
  serving: ProbeReplyView,
});
export type ProbePair = z.infer<typeof ProbePair>;

const where = z.union([z.strictObject({ runId }), z.strictObject({ path: z.string().min(1).max(4096) })]);

export const labRunsMethods = {
  'labRuns.recipes': {
    summary: 'The recipes the desktop can start (the embedded default first) and, for each, whether it can run here and why not.',
    params: z.strictObject({}),
    result: z.strictObject({ recipes: z.array(RecipeChoice), runsDir: z.string() }),
  },
  'labRuns.start': {
    summary: 'Create a run folder from a recipe and start it (engines, trainer, gateway, gate). At most one run is live.',
    params: z.strictObject({
      recipe: recipeId,
      seed: z.int().min(0).max(2_147_483_647).optional(),
      confirm: z.enum(CONFIRM_MODES).default('manual'),
      /** Run only the first N sessions (a shorter run). */
      sessions: z.int().positive().max(10_000).optional(),
    }),
    result: RunView,
  },
  'labRuns.current': {
    summary: 'The run on screen (live or opened from disk), whole; null when none.',
    params: z.strictObject({}),
    result: z.strictObject({ run: RunView.nullable() }),
  },
  'labRuns.list': {
    summary: "The run folders in the lab's runs folder, newest first.",
    params: z.strictObject({}),
    result: z.strictObject({ runsDir: z.string(), runs: z.array(RunFolderInfo) }),
  },
  'labRuns.awaiting': {
    summary:
      'Every candidate awaiting a person across the runs the lab follows (its runs folder and the folders opened here); changes arrive as labRuns.awaitingChanged.',
    params: z.strictObject({}),
    result: AwaitingView,
  },
  'labRuns.running': {
    summary: 'The run whose sessions this lab runs, on screen or in the background; null when none. Changes arrive as labRuns.runningChanged.',
    params: z.strictObject({}),
    result: RunningView,
  },
  'labRuns.open': {
    summary:
      'Open a run folder (by name in the runs folder, or by path) to look at it; nothing starts. A run this lab runs keeps running in the background; opening it again brings it back on screen, live.',
    params: where,
    result: RunView,
  },
  'labRuns.stop': {
    summary: 'Stop the live run after the session in progress (at once when paused); it can be resumed.',
    params: z.strictObject({}),
    result: RunView,
  },
  'labRuns.pause': {
    summary:
      "Pause the live run after the session in progress: no new session starts, while serving, the trainer's step in flight and the gate go on. Resume continues it.",
    params: z.strictObject({}),
    result: RunView,
  },
  'labRuns.resume': {
    summary: 'Continue the run on screen where it is: a paused run starts its next session; a stopped, crashed or opened one resumes where its journal ends.',
    params: z.strictObject({}),
    result: RunView,
  },
  'labRuns.confirm': {
    summary: 'A person confirms a candidate awaiting confirmation; the gate re-verifies and promotes it.',
    params: z.strictObject({ candidate: candidateId }),
    result: z.strictObject({ candidate: CandidateView, servingBefore: ServingPointerView, servingAfter: ServingPointerView }),
  },
  'labRuns.reject': {
    summary: 'A person rejects a candidate that is not yet promoted.',
    params: z.strictObject({ candidate: candidateId, reason: z.string().trim().min(1).max(500).default('rejected by a person in the desktop') }),
    result: z.strictObject({ candidate: CandidateView, servingBefore: ServingPointerView, servingAfter: ServingPointerView }),
  },
  'labRuns.inject': {
    summary:
      "Ask for a deliberately bad candidate of one of the six kinds: it is built in the background (queued behind any other request) and staged through the gate like any other. Answers at once with the request; it and its candidate arrive in the run's updates.",
    params: z.strictObject({ kind: z.enum(BAD_CANDIDATE_KINDS) }),
    result: z.strictObject({ injection: InjectionView, servingBefore: ServingPointerView }),
  },
  'labRuns.rollback': {
    summary: 'A person moves serving back to a version that served before (re-verified by the gate first).',
    params: z.strictObject({ version: versionId }),
    result: z.strictObject({ servingBefore: ServingPointerView, servingAfter: ServingPointerView }),
  },
  'labRuns.openCurve': {
    summary:
      "Load a run folder's curve.csv (and gate.csv) as the curve viewer does, titled by the folder's name: to view it, or to compare it with other runs.",
    params: z.union([
      z.strictObject({ runId, purpose: z.enum(['view', 'compare']).default('view') }),
      z.strictObject({ path: z.string().min(1).max(4096), purpose: z.enum(['view', 'compare']).default('view') }),
    ]),
    result: LoadedRun,
  },
  'labRuns.transcript': {
    summary: 'The whole conversation of one session of the run on screen: every turn, its verdict with offsets, reward and hint.',
    params: z.strictObject({ session: count.max(100_000) }),
    result: TranscriptView,
  },
  'labRuns.probeReplies': {
    summary: "The probe replies of one round of a candidate, paired with serving's on the same problems and seeds, with verdicts.",
    params: z.strictObject({ candidate: candidateId, round: z.int().positive().max(100) }),
    result: z.strictObject({ candidate: candidateId, round: z.int().positive(), seed: count, servingVersion: versionId, pairs: z.array(ProbePair) }),
  },
} as const satisfies MethodTable;
