// Starting a run's processes in this lab: its sessions (the recipe's tasks,
// a session at a time until they are done or it is stopped), live mode
// serving outside clients, or only its gate and probe engine, opened for a
// person's decision when nothing runs it. Each starts in the background of
// the request that asked for it; the view follows its phase.
import { isSettling, LabError } from '../contract';
import { LiveRun } from '../run/liveRun';
import { openLiveMode, type LiveMode } from '../run/live/liveMode';
import type { LabEventBus } from './eventBus';
import type { HeldRuns } from './heldRuns';
import { liveModeOf, type OpenRun } from './openRun';
import { sessionsEndedLine } from './runNarration';
import { phaseAfterSessions } from './runPhaseMachine';
import { holdRun, releaseRun } from './runHold';

export class RunLauncher {
  constructor(
    private readonly runs: HeldRuns,
    private readonly events: LabEventBus,
  ) {}

  /** Runs the run's sessions here, from where its journal ends, until they are done, stopped or failed. */
  sessions(c: OpenRun): void {
    this.track(
      c,
      (async () => {
        let run: LiveRun;
        try {
          run = await LiveRun.open(c.runDir, { mode: 'run', onLog: (line) => this.log(line) });
        } catch (error) {
          c.phase = 'failed';
          c.error = `the run could not start: ${(error as Error).message}`;
          this.events.log('error', c.error);
          c.updates.mark();
          return;
        }
        if (!this.runs.holds(c)) {
          await run.close();
          return;
        }
        await holdRun(c, run, 'run', null, this.events);
        c.phase = 'running';
        c.updates.mark();
        try {
          const summary = await run.runSessions();
          c.phase = phaseAfterSessions(summary.completed);
          this.log(sessionsEndedLine(summary));
        } catch (error) {
          c.phase = 'failed';
          c.error = (error as Error).message;
          if (!this.runs.closing) this.events.log('error', `The run failed: ${c.error}`);
        }
        // A stopped or failed run lets its engines go; a complete one on screen
        // keeps its gate open, so a candidate still awaiting confirmation can be
        // decided at once. In the background it lets go too: opening it opens its gate again.
        await this.runs.exclusive(async () => {
          if (c === this.runs.background) {
            await releaseRun(c, this.events);
            this.runs.background = null;
          } else if (c.phase !== 'completed') await releaseRun(c, this.events);
        });
        c.updates.mark();
      })(),
    );
  }

  /** Serves outside clients on a live-mode run folder until it is stopped (or fails: then it lets go, saying why). */
  live(c: OpenRun, idleSeconds?: number): void {
    this.track(
      c,
      (async () => {
        let live: LiveMode;
        try {
          live = await openLiveMode(c.runDir, {
            ...(idleSeconds !== undefined ? { idleSeconds } : {}),
            onLog: (line) => this.log(line),
            onChange: () => c.updates.mark(),
            onFatal: (error) => void this.failLive(c, error),
          });
        } catch (error) {
          c.phase = 'failed';
          c.error = `live mode could not start: ${(error as Error).message}`;
          this.events.log('error', c.error);
          c.updates.mark();
          return;
        }
        if (!this.runs.holds(c)) {
          await live.close();
          return;
        }
        await holdRun(c, live.run, 'live', live, this.events);
        c.phase = 'running';
        c.updates.mark();
        this.log(`Live mode serves at ${live.endpoint.baseUrl} (model ${live.endpoint.model}); the Live page shows the token.`);
      })(),
    );
  }

  /**
   * This process's LiveRun for a person's decision on `c`: the one held, or
   * — nothing runs it — its gate and probe engine opened here for it. Called
   * inside `HeldRuns.exclusive`.
   */
  async gateFor(c: OpenRun): Promise<LiveRun> {
    if (!this.runs.holds(c)) throw new LabError('conflict', 'the run on screen changed; try again');
    if (c.held.kind === 'live') return c.held.run;
    if (isSettling(c.phase)) throw new LabError('conflict', `the run is ${c.phase}; try again in a moment`);
    const run = await LiveRun.open(c.runDir, { mode: 'gate', onLog: (line) => this.log(line) });
    await holdRun(c, run, 'gate', null, this.events);
    c.phase = 'gate-only';
    c.error = null;
    c.updates.mark();
    return run;
  }

  /** Live mode hit a failure it cannot go on after (its journal, its trainer): it lets go of its processes and says why. */
  private failLive(c: OpenRun, error: Error): Promise<void> {
    return this.runs.exclusive(async () => {
      if (!this.runs.holds(c) || liveModeOf(c) === null) return;
      if (!this.runs.closing) this.events.log('error', `Live mode failed: ${error.message}`);
      await releaseRun(c, this.events);
      c.phase = 'failed';
      c.error = error.message;
      if (c === this.runs.background) this.runs.background = null;
      c.updates.mark();
    });
  }

  /** The run's sessions while they run; once they end, the run on screen no longer waits on them. */
  private track(c: OpenRun, done: Promise<void>): void {
    c.sessionsDone = done;
    done
      .finally(() => {
        if (this.runs.current === c) c.sessionsDone = null;
      })
      .catch(() => undefined);
  }

  private log(line: string): void {
    this.events.log('info', line);
  }
}
