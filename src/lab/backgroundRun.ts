// The run this lab runs, and the run on screen, are two things. The lab runs
// the sessions of at most one run (the machine has the cores for one); the
// person may look at any run folder meanwhile. Opening another folder while
// a run runs here moves that run to the background — its sessions, trainer,
// gate and serving go on, untouched — and opening it again brings it back.
// These rules decide, for an open, which run goes where; screenRuns.ts does it.
import path from 'node:path';
import { isLivePhase, type RunningRunView, type RunPhase } from '../contract';
import type { JournalEvent } from '../core/journal/journalEvents';
import { statusFromEvents } from '../run/runStatus';

/** What the rules need of a run the manager holds. */
export type HeldRun = { runDir: string; phase: RunPhase };

/** Whether this lab runs the run's sessions (its live phases): it cannot start or resume another meanwhile. */
export function runsSessions(run: HeldRun | null): boolean {
  return run !== null && isLivePhase(run.phase);
}

/** Where the runs go when the person opens `runDir`. */
export type OpenPlan<T extends HeldRun> =
  /** `runDir` is the run live on screen: it stays (its view is sent again, whole). */
  | { kind: 'stay'; run: T }
  /** `runDir` is the background run: it comes back on screen; `leaving` (what was on screen) is let go. */
  | { kind: 'bring-back'; run: T; leaving: T | null }
  /**
   * Another folder: read it from disk. `park` is the run on screen that runs
   * sessions here — it moves to the background, still running; otherwise
   * `leaving` (what was on screen) is let go as before.
   */
  | { kind: 'open'; park: T | null; leaving: T | null };

export function planOpen<T extends HeldRun>(onScreen: T | null, background: T | null, runDir: string): OpenPlan<T> {
  const target = path.resolve(runDir);
  if (background !== null && path.resolve(background.runDir) === target) return { kind: 'bring-back', run: background, leaving: onScreen };
  if (onScreen !== null && runsSessions(onScreen) && path.resolve(onScreen.runDir) === target) return { kind: 'stay', run: onScreen };
  if (runsSessions(onScreen)) {
    // One run of sessions at a time: a second one could only come from a bug, and would be lost from sight.
    if (background !== null) throw new Error(`two runs of sessions at once: ${onScreen!.runDir} and ${background.runDir}`);
    return { kind: 'open', park: onScreen, leaving: null };
  }
  return { kind: 'open', park: null, leaving: onScreen };
}

/** The run whose sessions this lab runs, on screen or in the background, or null. */
export function runningRun<T extends HeldRun>(onScreen: T | null, background: T | null): T | null {
  if (background !== null && runsSessions(background)) return background;
  return runsSessions(onScreen) ? onScreen : null;
}

/** The reason a second run of sessions is refused, naming the one that runs. */
export function refusalWhileRunning(running: HeldRun | null, what: string): string | null {
  if (running === null) return null;
  return `${path.basename(running.runDir)} is ${running.phase} in this lab (one run at a time); stop it before you ${what}`;
}

/** What the top bar shows of the running run. */
export function runningView(run: HeldRun & { events: readonly JournalEvent[] }): RunningRunView {
  const status = statusFromEvents(run.events);
  return {
    runId: path.basename(run.runDir),
    runDir: run.runDir,
    recipeName: status.recipe,
    phase: run.phase,
    sessionsCompleted: status.sessions.completed,
    sessionsPlanned: status.sessions.planned,
    live: run.events[0]?.type === 'run-started' && run.events[0].live === true,
  };
}
