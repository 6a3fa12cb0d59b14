// What a run's journal says, in the shapes people read: the learning curve
// (Reef's curve.csv), the gate's decisions (gate.csv: Reef's columns first,
// ours after), and summary.json. All derived from the journal, so they can be
// rewritten at any time and are always consistent with it.
import type { ProbeMetrics } from '../core/gate/probeMetrics';
import type { JournalEvent } from '../core/journal/journalEvents';
import type { ConfirmMode } from '../core/recipe/recipeSchema';
import { writeFileAtomic } from '../core/journal/atomicFile';
import { formatCurveCsv } from '../core/metrics/curveCsv';
import { curveRows, sessionsToAdaptation, type CurveRow, type SessionObservation } from '../core/metrics/curve';
import { writeCsvRecords } from '../core/metrics/csv';
import { formatPythonFloat } from '../core/metrics/pythonFloat';
import { foldGateState, type CandidateRecord } from '../core/gate/gateState';
import { runPaths } from './runFolder';
import type { Confirmer } from '../core/gate/candidateVocabulary';

export function sessionObservations(events: readonly JournalEvent[]): SessionObservation[] {
  return events.flatMap((e) => (e.type === 'session-completed' ? [e.curve as unknown as SessionObservation] : [])).sort((a, b) => a.session - b.session);
}

export function runCurve(events: readonly JournalEvent[]): CurveRow[] {
  const observations = sessionObservations(events);
  return observations.length === 0 ? [] : curveRows(observations);
}

/** gate.csv: Reef's columns, then ours. One row per candidate that has a decision or is awaiting one. */
export const GATE_CSV_COLUMNS = [
  'step',
  'outcome',
  'clean_rate',
  'best',
  'answered_rate',
  'gold_rate',
  'candidate',
  'version',
  'source',
  'state',
  'reason',
  'rounds_passed',
  'pass_rate',
  'mean_violations',
  'serving_version',
  'serving_pass_rate',
  'serving_clean_rate',
  'serving_gold_rate',
  'serving_answered_rate',
  'serving_mean_violations',
  'update_norm',
  'gate_seconds',
] as const;

function candidateStep(c: CandidateRecord): number {
  return c.source.kind === 'trainer' ? c.source.step : 0;
}

/** The round that decided: the failing one for a rejection, else the last. */
function decidingRound(c: CandidateRecord) {
  return c.rounds.find((r) => !r.passed) ?? c.rounds.at(-1);
}

export function gateSeconds(events: readonly JournalEvent[], id: string): number | null {
  const mine = events.filter((e) => 'id' in e && e.id === id);
  const staged = mine.find((e) => e.type === 'candidate-staged');
  const decided = mine.find((e) => e.type === 'candidate-rejected' || e.type === 'candidate-awaiting-confirm' || e.type === 'candidate-superseded');
  if (!staged || !decided) return null;
  return (Date.parse(decided.at) - Date.parse(staged.at)) / 1000;
}

export function gateCsv(events: readonly JournalEvent[], rounds: number): string {
  const state = foldGateState(rounds, events);
  const rate = (x: number | undefined) => (x === undefined ? '' : formatPythonFloat(x));
  const rows = [...state.candidates.values()]
    .filter((c) => c.state.kind !== 'superseded' && c.state.kind !== 'staged' && c.state.kind !== 'verified' && c.state.kind !== 'probing')
    .map((c) => {
      const r = decidingRound(c);
      const cand: Partial<ProbeMetrics> = r?.candidate ?? {};
      const serv: Partial<ProbeMetrics> & { version?: string } = r?.serving ?? {};
      const passedAll = c.rounds.length === rounds && c.rounds.every((x) => x.passed);
      const reason = c.state.kind === 'rejected' ? `${c.state.reason.code}: ${c.state.reason.detail}` : '';
      const norm = c.verifyEvidence?.updateNorm;
      const seconds = gateSeconds(events, c.id);
      return [
        String(candidateStep(c)),
        passedAll && c.state.kind !== 'rejected' ? 'select' : 'reject',
        rate(cand.clean_rate),
        rate(serv.clean_rate),
        rate(cand.answered_rate),
        rate(cand.gold_rate),
        c.id,
        c.version,
        c.source.kind === 'inject' ? `inject:${c.source.badKind}` : c.source.kind,
        c.state.kind,
        reason,
        String(c.rounds.filter((x) => x.passed).length),
        rate(cand.pass_rate),
        rate(cand.mean_violations),
        serv.version ?? '',
        rate(serv.pass_rate),
        rate(serv.clean_rate),
        rate(serv.gold_rate),
        rate(serv.answered_rate),
        rate(serv.mean_violations),
        typeof norm === 'number' ? formatPythonFloat(norm) : '',
        seconds === null ? '' : formatPythonFloat(seconds),
      ];
    });
  return writeCsvRecords([[...GATE_CSV_COLUMNS], ...rows]);
}

export type RunSummaryFile = {
  runId: string;
  recipe: string;
  seed: number;
  confirm: ConfirmMode;
  sessions: { completed: number; planned: number };
  sessions_to_adaptation: number | null;
  accepted: number;
  trainer_steps: number;
  candidates: number;
  promotions: { candidate: string; version: string; afterSession: number | null; by: Confirmer }[];
  rollbacks: { to: string; from: string; by: 'person' | 'gate' }[];
  rejections: Record<string, number>;
  superseded: number;
  awaiting_confirm: string[];
  serving: { version: string; sha256: string };
  gate_seconds_per_candidate: number | null;
  wall_seconds: number;
  completed: boolean;
};

/** Seconds the run's processes were alive: each process's span from its first to its last event. */
export function activeSeconds(events: readonly JournalEvent[]): number {
  let total = 0;
  let start: number | undefined;
  let last: number | undefined;
  for (const e of events) {
    const t = Date.parse(e.at);
    if (e.type === 'run-started' || e.type === 'run-resumed') {
      if (start !== undefined && last !== undefined) total += last - start;
      start = t;
    }
    last = t;
  }
  if (start !== undefined && last !== undefined) total += last - start;
  return total / 1000;
}

export function runSummary(events: readonly JournalEvent[], rounds: number): RunSummaryFile {
  const started = events.find((e) => e.type === 'run-started');
  if (!started || started.type !== 'run-started') throw new Error('the journal has no run-started event');
  const recipe = started.recipe as { name: string; seed: number; tasks: { sessions: number }; gate: { confirm: ConfirmMode } };
  const state = foldGateState(rounds, events);
  const curve = runCurve(events);
  const candidates = [...state.candidates.values()];
  const rejections: Record<string, number> = {};
  for (const c of candidates) if (c.state.kind === 'rejected') rejections[c.state.reason.code] = (rejections[c.state.reason.code] ?? 0) + 1;
  // The session after which each promotion happened (sessions that completed before it).
  let lastSession: number | null = null;
  const promotions: RunSummaryFile['promotions'] = [];
  const confirmedBy = new Map<string, Confirmer>();
  for (const e of events) {
    if (e.type === 'session-completed') lastSession = Math.max(lastSession ?? -1, e.session);
    if (e.type === 'candidate-confirmed') confirmedBy.set(e.id, e.by);
    if (e.type === 'candidate-promoted')
      promotions.push({ candidate: e.id, version: e.pointer.version, afterSession: lastSession, by: confirmedBy.get(e.id) ?? 'person' });
  }
  const timed = candidates.map((c) => gateSeconds(events, c.id)).filter((x): x is number => x !== null && x > 0);
  const pointer = state.pointer!;
  return {
    runId: started.runId,
    recipe: recipe.name,
    seed: recipe.seed,
    confirm: recipe.gate.confirm,
    sessions: { completed: curve.length, planned: recipe.tasks.sessions },
    sessions_to_adaptation: curve.length === 0 ? null : sessionsToAdaptation(curve),
    accepted: curve.reduce((s, r) => s + r.accept, 0),
    trainer_steps: events.filter((e) => e.type === 'trainer-step').length,
    candidates: candidates.length,
    promotions,
    rollbacks: events.flatMap((e) => (e.type === 'serving-rolled-back' ? [{ to: e.pointer.version, from: e.previous.version, by: e.by }] : [])),
    rejections,
    superseded: candidates.filter((c) => c.state.kind === 'superseded').length,
    awaiting_confirm: candidates.filter((c) => c.state.kind === 'awaiting-confirm').map((c) => c.id),
    serving: pointer,
    gate_seconds_per_candidate: timed.length === 0 ? null : timed.reduce((a, b) => a + b, 0) / timed.length,
    wall_seconds: activeSeconds(events),
    completed: events.some((e) => e.type === 'run-completed'),
  };
}

/** Rewrites curve.csv, gate.csv and summary.json from the journal. */
export async function writeRunReport(runDir: string, events: readonly JournalEvent[], rounds: number): Promise<RunSummaryFile> {
  const paths = runPaths(runDir);
  const curve = runCurve(events);
  const summary = runSummary(events, rounds);
  await writeFileAtomic(paths.curve, curve.length === 0 ? '' : formatCurveCsv(curve));
  await writeFileAtomic(paths.gateCsv, gateCsv(events, rounds));
  await writeFileAtomic(paths.summary, JSON.stringify(summary, null, 2) + '\n');
  return summary;
}
