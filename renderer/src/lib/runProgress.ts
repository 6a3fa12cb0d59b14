import type { AwaitingView, CandidateView, RunView } from '../../../src/contract/labRuns';
import { isLivePhase } from '../../../src/contract/runPhases';

/** 42 → "42 s", 725 → "12 min 05 s", 7380 → "2 h 03 min". */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const minutes = Math.floor(s / 60);
  if (minutes < 60) return `${minutes} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** Whether the run's sessions are alive in some process (the clock runs, the trainer may be stepping). */
export function isLive(run: RunView): boolean {
  const { phase, heldBy } = run.header;
  return heldBy !== null || isLivePhase(phase);
}

/** Seconds the session in progress has run, now; 0 when none runs (paused, stopped, ended). */
function intoSession(run: RunView, nowMs: number): number {
  const since = run.header.progress.sessionSince;
  if (since === null || !isLive(run)) return 0;
  return Math.max(0, (nowMs - Date.parse(since)) / 1000);
}

/** The run's session time, now: its sessions so far and the one in progress; pauses and time after it ended never count. */
export function elapsedSeconds(run: RunView, nowMs: number): number {
  return run.header.progress.activeSeconds + intoSession(run, nowMs);
}

/**
 * Seconds until the last planned session is done, from the mean session so
 * far (pauses left out), less the time the session in progress has run;
 * null when no estimate can be made yet, or nothing runs.
 */
export function etaSeconds(run: RunView, nowMs: number): number | null {
  const h = run.header;
  const perSession = h.progress.secondsPerSession;
  if (perSession === null || (h.phase !== 'running' && h.heldBy === null)) return null;
  const remaining = h.sessions.planned - h.sessions.completed;
  if (remaining <= 0) return 0;
  return Math.max(0, remaining * perSession - Math.min(intoSession(run, nowMs), perSession));
}

/** Candidates a person must decide, oldest first. */
export function awaitingCandidates(candidates: readonly CandidateView[]): CandidateView[] {
  return candidates.filter((c) => c.state === 'awaiting-confirm');
}

/** The gate's state in a phrase, and the injections still being built or waiting to be. */
export function gateStateText(run: RunView): string {
  const building = run.header.injections.find((i) => i.state === 'building');
  const queued = run.header.injections.filter((i) => i.state === 'queued').length;
  const injections = [building === undefined ? '' : `building ${building.id} (${building.kind})`, queued === 0 ? '' : `${queued} queued`]
    .filter((x) => x !== '')
    .join(', ');
  const gate = gateWork(run);
  return injections === '' ? gate : `${gate} · injections: ${injections}`;
}

/** What needs the person, else what the gate is doing, else idle. */
function gateWork(run: RunView): string {
  const awaiting = awaitingCandidates(run.candidates);
  if (awaiting.length > 0) return `${awaiting.map((c) => c.id).join(', ')} ${awaiting.length === 1 ? 'awaits' : 'await'} your decision`;
  const probing = run.candidates.find((c) => c.state === 'probing' && c.probingRound !== null);
  if (probing) return `probing ${probing.id}, round ${probing.probingRound}/${probing.roundsRequired}`;
  const promoting = run.candidates.find((c) => c.state === 'confirmed');
  if (promoting) return `promoting ${promoting.id}`;
  const verifying = run.candidates.find((c) => c.state === 'staged');
  if (verifying) return `verifying ${verifying.id}`;
  const next = run.candidates.find((c) => (c.state === 'verified' || c.state === 'probing') && !c.heldForPerson);
  if (next) return `${next.id} next to probe`;
  return `idle, serving ${run.header.serving.version}`;
}

/**
 * The window title: a decision waiting in any run the lab follows comes
 * first, so it shows in the task bar whichever run is on screen.
 */
export function windowTitle(run: RunView | null, awaiting: AwaitingView): string {
  if (awaiting.total === 0) return run === null ? 'GateLab' : `GateLab · ${run.header.runId}`;
  const only = awaiting.total === 1 ? awaiting.runs[0] : undefined;
  const who = only !== undefined ? `${only.candidates[0]!.id} awaits you in ${only.runId}` : `${awaiting.total} candidates await you`;
  return `(${awaiting.total}) ${who} · GateLab`;
}
