// The run's phase on the desktop, as a state machine: what each of a
// person's requests (and each turn of the run's own life) does from each
// phase. The phases and their groups are the contract's (runPhases.ts); the
// manager's parts (runControls.ts, runLaunch.ts, runHold.ts) do what these say.
import { inSessionLoop, isLivePhase, isPausePhase, isSettling, mayRunSession, type RunPhase } from '../contract';

/** How the lab holds the run: its sessions run here, only its gate is open here, or nothing of it runs here. */
export type Holding = 'sessions' | 'gate' | 'none';

/** Resume: a paused loop continues; anything else (stopped, crashed, opened) starts its sessions again where the journal ends. */
export function resumeStep(phase: RunPhase, holding: Holding): { kind: 'continue'; next: 'running' } | { kind: 'relaunch'; next: 'starting' } {
  return isPausePhase(phase) && holding !== 'none' ? { kind: 'continue', next: 'running' } : { kind: 'relaunch', next: 'starting' };
}

/** Stop: a running loop stops after its session; a settling run asks to wait; anything else lets its processes go. */
export function stopStep(phase: RunPhase, holding: Holding): { kind: 'stop-after-session'; next: 'stopping' } | { kind: 'wait' } | { kind: 'let-go' } {
  if (inSessionLoop(phase) && phase !== 'stopping' && holding !== 'none') return { kind: 'stop-after-session', next: 'stopping' };
  if (isSettling(phase)) return { kind: 'wait' };
  return { kind: 'let-go' };
}

/** Only a running loop of this lab can be paused: `pausing` until the session in progress ends, then `paused`. */
export function canPause(phase: RunPhase, holding: Holding): boolean {
  return holding === 'sessions' && phase === 'running';
}

/** The phase once the lab lets go of the run's processes: what ran here is now only viewed. */
export function phaseAfterLettingGo(phase: RunPhase): RunPhase {
  return phase === 'gate-only' || (isLivePhase(phase) && phase !== 'stopping') ? 'viewing' : phase;
}

/** The phase once the session loop returned: complete, or stopped (a failure is `failed`). */
export function phaseAfterSessions(completed: boolean): RunPhase {
  return completed ? 'completed' : 'stopped';
}

/** The session in progress (the first not yet completed), while one may run. */
export function sessionInProgress(phase: RunPhase, completed: ReadonlySet<number>, planned: number): number | null {
  if (!mayRunSession(phase)) return null;
  for (let s = 0; s < planned; s++) if (!completed.has(s)) return s;
  return null;
}
