// A person's pause of the session loop. Asked for at any time, it takes hold
// between two sessions: the loop journals `run-paused`, tells the asker the
// pause is reached, and waits until the run continues (or stops), then
// journals `run-continued`. Serving, the trainer and the gate never wait on it.
import type { RunJournal } from '../core/journal/runJournal';

type Pause = { reached: Promise<void>; markReached: () => void; release: (() => void) | undefined };

export class PauseLatch {
  private pause: Pause | undefined;

  /** Asks for a pause; resolves once no session runs (at once when the loop has ended). */
  request(): Promise<void> {
    if (!this.pause) {
      let markReached!: () => void;
      const reached = new Promise<void>((resolve) => (markReached = resolve));
      this.pause = { reached, markReached, release: undefined };
    }
    return this.pause.reached;
  }

  /** Lets a paused loop go on (and drops a pause asked for but not reached yet). */
  release(): void {
    const pause = this.pause;
    this.pause = undefined;
    pause?.markReached();
    pause?.release?.();
  }

  /** The loop has ended: a pause asked for now has nothing left to wait for. */
  loopEnded(): void {
    this.pause?.markReached();
  }

  /**
   * Where the session loop waits while paused (between two sessions). A stop
   * while paused ends the stretch here (`stopping()` true): a resume later
   * journals its own start.
   */
  async point(journal: RunJournal, stopping: () => boolean): Promise<void> {
    const pause = this.pause;
    if (!pause || stopping()) return;
    const released = new Promise<void>((resolve) => (pause.release = resolve));
    await journal.append({ type: 'run-paused' });
    pause.markReached();
    await released;
    if (!stopping()) await journal.append({ type: 'run-continued' });
  }
}
