// The runs the lab holds: the run on screen, and the run whose sessions this
// lab runs while the person looks at another (backgroundRun.ts says which goes
// where). What is held changes one step at a time, in the order asked
// (`exclusive`): a start, an open, a stop or a run letting go of its processes
// never sees another half done.
import type { RunningView } from '../contract';
import { LabError } from '../contract';
import { refusalWhileRunning, runningRun, runningView } from './backgroundRun';
import type { OpenRun } from './openRun';

export class HeldRuns {
  /** The run on screen. */
  current: OpenRun | null = null;
  /** The run whose sessions this lab runs while another is on screen (it goes on untouched), or null. */
  background: OpenRun | null = null;
  /** The lab is shutting down: what it cuts off is not reported as a failure. */
  closing = false;
  private lifecycle: Promise<unknown> = Promise.resolve();

  /** Whether `c` is still held here: on screen, or running in the background. */
  holds(c: OpenRun): boolean {
    return c === this.current || c === this.background;
  }

  requireCurrent(): OpenRun {
    if (!this.current) throw new LabError('conflict', 'no run is open: start one or open a run folder first');
    return this.current;
  }

  /** Refuses `what` while this lab runs a run's sessions (one run at a time). */
  refuseWhileRunning(what: string): void {
    const refusal = refusalWhileRunning(runningRun(this.current, this.background), what);
    if (refusal !== null) throw new LabError('conflict', refusal);
  }

  /** The run whose sessions this lab runs, on screen or in the background. */
  running(): RunningView {
    const run = runningRun(this.current, this.background);
    return { run: run === null ? null : runningView(run) };
  }

  /** Runs `work` after every change of what is held asked before it (a failed one does not stop the next). */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.lifecycle.then(work);
    this.lifecycle = run.catch(() => undefined);
    return run;
  }
}
