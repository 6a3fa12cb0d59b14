import type { CandidateView, RunView } from '../../../electron/contract/liveRuns';

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
  return heldBy !== null || phase === 'starting' || phase === 'running' || phase === 'pausing' || phase === 'paused' || phase === 'stopping';
}

/** Seconds the run's processes have been alive, now. */
export function elapsedSeconds(run: RunView, nowMs: number): number {
  const { progress, lastEventAt } = run.header;
  return progress.activeSeconds + (isLive(run) ? Math.max(0, (nowMs - Date.parse(lastEventAt)) / 1000) : 0);
}

/**
 * Seconds until the last planned session is done, from the mean session so
 * far (the session in progress counts from when the one before it finished);
 * null when no estimate can be made yet, or nothing runs.
 */
export function etaSeconds(run: RunView, nowMs: number): number | null {
  const h = run.header;
  const perSession = h.progress.secondsPerSession;
  if (perSession === null || (h.phase !== 'running' && h.heldBy === null)) return null;
  const remaining = h.sessions.planned - h.sessions.completed;
  if (remaining <= 0) return 0;
  const last = run.sessions.at(-1);
  const intoCurrent = last === undefined ? 0 : Math.max(0, (nowMs - Date.parse(last.at)) / 1000);
  return Math.max(0, remaining * perSession - Math.min(intoCurrent, perSession));
}

/** Candidates a person must decide, oldest first. */
export function awaitingCandidates(candidates: readonly CandidateView[]): CandidateView[] {
  return candidates.filter((c) => c.state === 'awaiting-confirm');
}

/** The gate's state in a phrase, and the injections still being built or waiting to be. */
export function gateStateText(run: RunView): string {
  const building = run.header.injections.find((i) => i.state === 'building');
  const queued = run.header.injections.filter((i) => i.state === 'queued').length;
  const injections = [building === undefined ? '' : `building ${building.id} (${building.kind})`, queued === 0 ? '' : `${queued} queued`].filter((x) => x !== '').join(', ');
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

/** The window title: a waiting decision first, so it shows in the task bar. */
export function windowTitle(run: RunView | null): string {
  if (run === null) return 'GateLab';
  const awaiting = awaitingCandidates(run.candidates);
  if (awaiting.length === 0) return `GateLab · ${run.header.runId}`;
  const who = awaiting.length === 1 ? `${awaiting[0]!.id} awaits you` : `${awaiting.length} candidates await you`;
  return `(${awaiting.length}) ${who} · GateLab`;
}
