// What the desktop shows of a run, derived from its journal alone (plus the
// session transcripts for the reply texts). The journal is the run's truth,
// so a live run, a stopped one and a folder opened from disk are all shown
// by the same function, and nothing on screen can disagree with the files.
import type {
  CandidateView,
  HintView,
  InjectionView,
  LiveHeaderView,
  LiveServingView,
  LiveSessionView,
  OpenConversationView,
  RefusedStepView,
  RoundCheck,
  RunHeader,
  RunPhase,
  RunView,
  ServingChangeView,
  SessionView,
  TrainerStepView,
  VerdictView,
} from '../contract';
import { CurveRow, inSessionLoop, isLivePhase } from '../contract';
import { foldGateState, isHeldForPerson, type CandidateRecord, type GateState } from '../core/gate/gateState';
import { judgeRound } from '../core/gate/roundVerdict';
import type { ProbeMetrics } from '../core/gate/probeMetrics';
import type { JournalEvent } from '../core/journal/journalEvents';
import type { ServingPointer } from '../core/journal/servingPointer';
import { sessionsToAdaptation } from '../core/metrics/curve';
import { recipeSchema, windowTurns, type Floors, type Margins, type Recipe } from '../core/recipe/recipeSchema';
import { runCurve } from '../run/runReport';
import { runProgress } from './journalProgress';
import { sessionTrainings } from './sessionTraining';
import type { Confirmer } from '../core/gate/candidateVocabulary';

/** The parts of a session's transcript the run view shows (read by sessionDetails.ts). */
export type SessionDetail = {
  question: string;
  gold: number | null;
  firstReply: string;
  verdict: VerdictView;
  reaction: string | null;
  reward: -1 | 0 | 1 | null;
  hint: HintView | null;
  version: string;
  /** A live session: its conversation's name and how it was recognised (null: its transcript could not be read). */
  live: LiveSessionView | null;
};

/** What the journal does not know: how the lab holds the run right now. */
export type RunLiveness = {
  phase: RunPhase;
  error: string | null;
  heldBy: number | null;
  /** The session in progress, when sessions are running. */
  running: number | null;
  /** This lab's injection requests on the run. */
  injections: InjectionView[];
  /** Live mode's open conversations and where clients connect, while it serves here (a live-mode run only). */
  serving: { endpoint: LiveServingView; open: OpenConversationView[] } | null;
  update: number;
};

export type RunViewInput = {
  runDir: string;
  events: readonly JournalEvent[];
  details: ReadonlyMap<number, SessionDetail>;
  liveness: RunLiveness;
};

type RunStarted = Extract<JournalEvent, { type: 'run-started' }>;

export function runStartedOf(events: readonly JournalEvent[]): RunStarted {
  const first = events[0];
  if (first?.type !== 'run-started') throw new Error('the journal does not start with run-started');
  return first;
}

export function recipeOf(events: readonly JournalEvent[]): Recipe {
  return recipeSchema.parse(runStartedOf(events).recipe);
}

export function buildRunView(input: RunViewInput): RunView {
  const { events } = input;
  const recipe = recipeOf(events);
  const curve = runCurve(events);
  const sessions = sessionViews(events, curve, input.details);
  const candidates = candidateViews(events, recipe);
  return {
    header: runHeader(input, recipe, curve),
    sessions,
    trainerSteps: trainerSteps(events),
    refusedSteps: refusedSteps(events),
    candidates,
    servingHistory: servingHistory(events),
  };
}

function runHeader(input: RunViewInput, recipe: Recipe, curve: ReturnType<typeof runCurve>): RunHeader {
  const { events, liveness } = input;
  const started = runStartedOf(events);
  const gate = foldGateState(recipe.gate.rounds, events);
  const pointer = gate.pointer ?? started.baseVersion;
  return {
    runId: started.runId,
    runDir: input.runDir,
    recipeName: recipe.name,
    recipeFile: started.recipeFile,
    seed: recipe.seed,
    confirm: recipe.gate.confirm,
    rounds: recipe.gate.rounds,
    batchTurns: recipe.trainer.batch_turns,
    windowTurns: windowTurns(recipe.trainer),
    klCoef: recipe.trainer.loss.kl_coef,
    maxUpdateNorm: recipe.gate.max_update_norm,
    phase: liveness.phase,
    error: liveness.error,
    heldBy: liveness.heldBy,
    sessions: {
      planned: recipe.tasks.sessions,
      completed: curve.length,
      accepted: curve.reduce((sum, row) => sum + row.accept, 0),
      adaptationSession: curve.length === 0 ? null : sessionsToAdaptation(curve),
      running: liveness.running,
    },
    serving: { version: pointer.version, sha256: pointer.sha256 },
    servedVersions: uniquePointers(gate.servedVersions),
    startedAt: started.at,
    lastEventAt: events.at(-1)?.at ?? started.at,
    journalEvents: events.length,
    progress: runProgress(
      events,
      recipe,
      // Live: the sessions and trainer are alive in some process (the trainer's step can be in flight).
      isLivePhase(liveness.phase) || liveness.heldBy !== null,
      // In the session loop: its start is journaled; a pause is journaled as it begins.
      inSessionLoop(liveness.phase) || liveness.heldBy !== null,
    ),
    injections: liveness.injections,
    live: liveHeader(started, liveness),
    update: liveness.update,
  };
}

/** Live mode's part of the header: on a live-mode run only (the journal's first event says so). */
function liveHeader(started: RunStarted, liveness: RunLiveness): LiveHeaderView | null {
  if (started.live !== true) return null;
  return { serving: liveness.serving?.endpoint ?? null, open: liveness.serving?.open ?? [] };
}

function uniquePointers(pointers: readonly ServingPointer[]): { version: string; sha256: string }[] {
  const seen = new Set<string>();
  const out: { version: string; sha256: string }[] = [];
  for (const p of pointers) {
    if (seen.has(p.version)) continue;
    seen.add(p.version);
    out.push({ version: p.version, sha256: p.sha256 });
  }
  return out;
}

function sessionViews(events: readonly JournalEvent[], curve: ReturnType<typeof runCurve>, details: ReadonlyMap<number, SessionDetail>): SessionView[] {
  const rowBySession = new Map(curve.map((row) => [row.session, row]));
  const trainings = sessionTrainings(events);
  const out: SessionView[] = [];
  for (const e of events) {
    if (e.type !== 'session-completed') continue;
    const row = rowBySession.get(e.session);
    const detail = details.get(e.session);
    const training = trainings.get(e.session);
    // A session whose transcript is not read yet is shown on the next update.
    if (!row || !detail || !training) continue;
    out.push({
      session: e.session,
      at: e.at,
      taskId: e.taskId,
      question: detail.question,
      gold: detail.gold,
      accepted: e.accepted,
      turns: e.turns,
      version: detail.version,
      firstReply: detail.firstReply,
      verdict: detail.verdict,
      reaction: detail.reaction,
      reward: detail.reward,
      hint: detail.hint,
      curve: curveColumns(row),
      training,
      live: detail.live,
    });
  }
  return out.sort((a, b) => a.session - b.session);
}

/** The curve.csv columns of a session's row (live mode's sessions carry more: judged and trained turns, the PRM's mean). */
function curveColumns(row: ReturnType<typeof runCurve>[number]): SessionView['curve'] {
  const record = row as Record<string, unknown>;
  return CurveRow.parse(Object.fromEntries(Object.keys(CurveRow.shape).map((key) => [key, record[key]])));
}

const statOf = (stats: Record<string, number>, key: string): number | null => {
  const value = stats[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
};

function trainerSteps(events: readonly JournalEvent[]): TrainerStepView[] {
  let sessions = 0;
  const out: TrainerStepView[] = [];
  for (const e of events) {
    if (e.type === 'session-completed') sessions++;
    if (e.type !== 'trainer-step') continue;
    out.push({
      step: e.step,
      at: e.at,
      samples: e.samples,
      samplesThrough: e.samplesThrough,
      loss: statOf(e.stats, 'loss'),
      pg: statOf(e.stats, 'pg'),
      opd: statOf(e.stats, 'opd'),
      kl: statOf(e.stats, 'kl'),
      klCoef: statOf(e.stats, 'klCoef'),
      gradNorm: statOf(e.stats, 'gradNorm'),
      updateNorm: statOf(e.stats, 'updateNorm'),
      tokens: statOf(e.stats, 'tokens'),
      seconds: statOf(e.stats, 'seconds'),
      version: e.candidate.version,
      sha256: e.candidate.sha256,
      afterSessions: sessions,
    });
  }
  return out;
}

function refusedSteps(events: readonly JournalEvent[]): RefusedStepView[] {
  return events.flatMap((e) =>
    e.type === 'trainer-step-refused' ? [{ at: e.at, samples: e.samples, samplesThrough: e.samplesThrough, code: e.code, message: e.message }] : [],
  );
}

function servingHistory(events: readonly JournalEvent[]): ServingChangeView[] {
  let sessions = 0;
  const confirmedBy = new Map<string, Confirmer>();
  const out: ServingChangeView[] = [];
  for (const e of events) {
    switch (e.type) {
      case 'session-completed':
        sessions++;
        break;
      case 'candidate-confirmed':
        confirmedBy.set(e.id, e.by);
        break;
      case 'candidate-promoted':
        out.push({
          at: e.at,
          kind: 'promoted',
          from: e.previous,
          to: e.pointer,
          by: confirmedBy.get(e.id) ?? 'person',
          candidate: e.id,
          reason: null,
          afterSessions: sessions,
        });
        break;
      case 'serving-rolled-back':
        out.push({
          at: e.at,
          kind: 'rolled-back',
          from: e.previous,
          to: e.pointer,
          by: e.by,
          candidate: null,
          reason: e.reason ?? null,
          afterSessions: sessions,
        });
        break;
      default:
        break;
    }
  }
  return out;
}

/** Per candidate, what the fold does not keep: when it was staged and decided, and what served then. */
type CandidateTimeline = {
  stagedAt: string;
  stagedAfterSessions: number;
  servingAtStage: ServingPointer;
  verifiedAt: string | null;
  decidedAt: string | null;
  servingAtDecision: ServingPointer | null;
  confirmedBy: Confirmer | null;
};

function candidateTimelines(events: readonly JournalEvent[]): Map<string, CandidateTimeline> {
  const timelines = new Map<string, CandidateTimeline>();
  let pointer: ServingPointer | undefined;
  let sessions = 0;
  for (const e of events) {
    switch (e.type) {
      case 'run-started':
        pointer = e.baseVersion;
        break;
      case 'session-completed':
        sessions++;
        break;
      case 'candidate-staged':
        if (pointer)
          timelines.set(e.id, {
            stagedAt: e.at,
            stagedAfterSessions: sessions,
            servingAtStage: pointer,
            verifiedAt: null,
            decidedAt: null,
            servingAtDecision: null,
            confirmedBy: null,
          });
        break;
      case 'candidate-verified': {
        const t = timelines.get(e.id);
        if (t) t.verifiedAt = e.at;
        break;
      }
      case 'candidate-confirmed': {
        const t = timelines.get(e.id);
        if (t) t.confirmedBy = e.by;
        break;
      }
      case 'candidate-promoted': {
        pointer = e.pointer;
        const t = timelines.get(e.id);
        if (t) Object.assign(t, { decidedAt: e.at, servingAtDecision: e.pointer });
        break;
      }
      case 'candidate-rejected': {
        const t = timelines.get(e.id);
        if (t) Object.assign(t, { decidedAt: e.at, servingAtDecision: e.pointer });
        break;
      }
      case 'candidate-superseded': {
        const t = timelines.get(e.id);
        if (t) Object.assign(t, { decidedAt: e.at, servingAtDecision: pointer ?? null });
        break;
      }
      case 'serving-rolled-back':
        pointer = e.pointer;
        break;
      default:
        break;
    }
  }
  return timelines;
}

export function candidateViews(events: readonly JournalEvent[], recipe: Recipe): CandidateView[] {
  const gate = foldGateState(recipe.gate.rounds, events);
  const timelines = candidateTimelines(events);
  return [...gate.candidates.values()]
    .sort((a, b) => a.stagedSeq - b.stagedSeq)
    .flatMap((c) => {
      const t = timelines.get(c.id);
      return t ? [candidateView(c, t, recipe, gate)] : [];
    });
}

function candidateView(c: CandidateRecord, t: CandidateTimeline, recipe: Recipe, gate: GateState): CandidateView {
  const s = c.state;
  const norm = c.verifyEvidence?.['updateNorm'];
  return {
    id: c.id,
    version: c.version,
    sha256: c.sha256,
    source: c.source,
    state: s.kind,
    probingRound: s.kind === 'probing' && s.passedRounds < s.round ? s.round : null,
    passedRounds: c.rounds.filter((r) => r.passed).length,
    roundsRequired: recipe.gate.rounds,
    reason: s.kind === 'rejected' ? { code: s.reason.code, detail: s.reason.detail, metric: s.reason.metric ?? null } : null,
    supersededBy: s.kind === 'superseded' ? s.by : null,
    confirmedBy: t.confirmedBy,
    updateNorm: typeof norm === 'number' ? norm : null,
    maxUpdateNorm: recipe.gate.max_update_norm,
    rounds: c.rounds.map((r) => ({
      round: r.round,
      seed: r.seed,
      passed: r.passed,
      failing: r.failing,
      candidate: r.candidate,
      serving: r.serving,
      checks: roundChecks(r.candidate, r.serving, recipe.gate.margins, recipe.gate.floors),
    })),
    stagedAt: t.stagedAt,
    verifiedAt: t.verifiedAt,
    decidedAt: t.decidedAt,
    stagedAfterSessions: t.stagedAfterSessions,
    servingAtStage: t.servingAtStage,
    servingAtDecision: t.servingAtDecision,
    heldForPerson: isHeldForPerson(gate, c),
  };
}

/**
 * Each gated metric of a round, for display: the candidate's value against
 * serving's and the limit the margin (and floor) sets. Whether a metric is
 * ok comes from the gate's own `judgeRound`, so the screen can never pass a
 * metric the gate failed.
 */
export function roundChecks(candidate: ProbeMetrics, serving: ProbeMetrics, margins: Margins, floors: Floors): RoundCheck[] {
  const verdict = judgeRound(candidate, serving, margins, floors);
  const failed = new Set<string>(verdict.metrics);
  const higher = (metric: 'pass_rate' | 'gold_rate' | 'answered_rate'): RoundCheck => {
    const floor = metric === 'pass_rate' ? null : floors[metric];
    const limit = Math.max(serving[metric] - margins[metric], floor ?? -Infinity);
    return { metric, candidate: candidate[metric], serving: serving[metric], direction: 'min', limit, margin: margins[metric], floor, ok: !failed.has(metric) };
  };
  return [
    higher('pass_rate'),
    higher('gold_rate'),
    higher('answered_rate'),
    {
      metric: 'mean_violations',
      candidate: candidate.mean_violations,
      serving: serving.mean_violations,
      direction: 'max',
      limit: serving.mean_violations + margins.mean_violations,
      margin: margins.mean_violations,
      floor: null,
      ok: !failed.has('mean_violations'),
    },
  ];
}
