// A run's state as `gatelab status --json` and the desktop show it: the
// serving pointer and every candidate with its state, reason and evidence —
// folded from the journal alone, so it can be read while the run is live
// (the journal is fsynced per event) or long after.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { foldGateState, type CandidateState } from '../core/gate/gateState';
import type { ProbeMetrics } from '../core/gate/probeMetrics';
import type { JournalEvent } from '../core/journal/journalEvents';
import { recipeSchema, type ConfirmMode } from '../core/recipe/recipeSchema';
import { readJournal } from '../core/journal/appendOnlyJournal';
import { journalEventSchema } from '../core/journal/journalEvents';
import type { ServingPointer } from '../core/journal/servingPointer';
import { runPaths } from './runFolder';

export type CandidateStatus = {
  id: string;
  version: string;
  sha256: string;
  source: string;
  state: CandidateState['kind'];
  /** probing: the round in progress; else the rounds passed. */
  round: number;
  reason: string | null;
  rounds: {
    round: number;
    passed: boolean;
    seed: number;
    failing: string[];
    candidate: ProbeMetrics;
    serving: ProbeMetrics & { version: string };
    replies: string;
  }[];
  verify: Record<string, unknown> | null;
};

export type RunStatus = {
  runId: string;
  recipe: string;
  confirm: ConfirmMode;
  serving: ServingPointer;
  servedVersions: string[];
  sessions: { completed: number; planned: number; accepted: number };
  trainerSteps: number;
  candidates: CandidateStatus[];
  completed: boolean;
  /** Why the sessions last stopped on an error (`run-failed`), unless the run resumed or completed since; else null. */
  failure: string | null;
};

/** The error of the journal's last `run-failed` event, when nothing resumed or completed the run after it. */
export function lastFailure(events: readonly JournalEvent[]): string | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.type === 'run-failed') return e.error;
    if (e.type === 'run-resumed' || e.type === 'run-started' || e.type === 'run-completed') return null;
  }
  return null;
}

export function statusFromEvents(events: readonly JournalEvent[]): RunStatus {
  const started = events[0];
  if (!started || started.type !== 'run-started') throw new Error('the journal has no run-started event');
  const recipe = recipeSchema.parse(started.recipe);
  const gate = foldGateState(recipe.gate.rounds, events);
  const sessions = events.filter((e) => e.type === 'session-completed');
  return {
    runId: started.runId,
    recipe: recipe.name,
    confirm: recipe.gate.confirm,
    serving: gate.pointer!,
    servedVersions: [...new Set(gate.servedVersions.map((p) => p.version))],
    sessions: {
      completed: sessions.length,
      planned: recipe.tasks.sessions,
      accepted: sessions.filter((e) => e.type === 'session-completed' && e.accepted).length,
    },
    trainerSteps: events.filter((e) => e.type === 'trainer-step').length,
    candidates: [...gate.candidates.values()].map((c) => ({
      id: c.id,
      version: c.version,
      sha256: c.sha256,
      source:
        c.source.kind === 'trainer' ? `trainer step ${c.source.step}` : c.source.kind === 'inject' ? `inject ${c.source.badKind}` : `file ${c.source.path}`,
      state: c.state.kind,
      round: c.state.kind === 'probing' ? c.state.round : c.rounds.filter((r) => r.passed).length,
      reason:
        c.state.kind === 'rejected' ? `${c.state.reason.code}: ${c.state.reason.detail}` : c.state.kind === 'superseded' ? `superseded by ${c.state.by}` : null,
      rounds: c.rounds,
      verify: c.verifyEvidence ?? null,
    })),
    completed: events.some((e) => e.type === 'run-completed'),
    failure: lastFailure(events),
  };
}

/** Reads a run folder's status without taking its lock (safe while it runs). */
export async function readRunStatus(runDir: string): Promise<RunStatus> {
  const { events } = await readJournal(runPaths(runDir).journal, journalEventSchema);
  if (events.length === 0) throw new Error(`${runDir} has no journal.jsonl (is it a run folder?)`);
  return statusFromEvents(events);
}

/**
 * What a person reads before confirming (docs/design.md, A person's confirmation): each probe round's
 * metrics on both sides and every probe reply, candidate and serving on the
 * same seed, with the markers the verifier found (offsets into the reply).
 */
export type CandidateEvidence = {
  candidate: CandidateStatus;
  rounds: {
    round: number;
    seed: number;
    servingVersion: string;
    candidate: unknown[];
    serving: unknown[];
  }[];
};

export async function readCandidateEvidence(runDir: string, id: string): Promise<CandidateEvidence> {
  const status = await readRunStatus(runDir);
  const candidate = status.candidates.find((c) => c.id === id);
  if (!candidate) throw new Error(`no candidate ${id} in ${runDir}`);
  const rounds = await Promise.all(
    candidate.rounds.map(async (r) => {
      const file = JSON.parse(await readFile(path.join(runDir, r.replies), 'utf8')) as { servingVersion: string; candidate: unknown[]; serving: unknown[] };
      return { round: r.round, seed: r.seed, servingVersion: file.servingVersion, candidate: file.candidate, serving: file.serving };
    }),
  );
  return { candidate, rounds };
}
