// Which run is on screen. Opening a folder reads it from disk (following its
// journal when another process runs it); the run that was on screen is let
// go, unless this lab runs its sessions: then it moves to the background,
// still running, and opening it again brings it back (backgroundRun.ts
// decides which goes where). Each is called inside `HeldRuns.exclusive`.
import path from 'node:path';
import type { BadCandidateKind, RunPhase } from '../contract';
import type { LabEventBus } from './eventBus';
import type { HeldRuns } from './heldRuns';
import { planOpen } from './backgroundRun';
import { followJournal, stopFollowing } from './journalFollower';
import { openRunFolder, type OpenRun } from './openRun';
import { releaseRun } from './runHold';
import type { RunViewSender } from './runViewSender';

export type ScreenRunsDeps = {
  runs: HeldRuns;
  views: RunViewSender;
  events: LabEventBus;
  /** How long journal events are gathered before one update goes out (ms). */
  batchMs: number;
  /** Builds and stages one injected candidate on the run (its injection queue's builder); answers its candidate id. */
  buildInjection: (run: OpenRun, kind: BadCandidateKind) => Promise<string>;
};

export class ScreenRuns {
  constructor(private readonly deps: ScreenRunsDeps) {}

  /** Puts the run folder `runDir` on screen; answers the run now there. */
  async open(runDir: string): Promise<OpenRun> {
    const { runs, views } = this.deps;
    const plan = planOpen(runs.current, runs.background, runDir);
    switch (plan.kind) {
      case 'stay':
        await views.emit(plan.run, true);
        return plan.run;
      case 'bring-back':
        if (plan.leaving) await this.leave(plan.leaving);
        runs.background = null;
        runs.current = plan.run;
        await views.emit(plan.run, true);
        this.log(`Back to run ${path.basename(plan.run.runDir)}: it is ${plan.run.phase}.`);
        return plan.run;
      case 'open': {
        const next = await this.openFolder(runDir, 'viewing');
        if (plan.park) {
          runs.background = plan.park;
          runs.current = null;
          this.log(`${path.basename(plan.park.runDir)} keeps running in the background; the top bar leads back to it.`);
        }
        await this.replace(next);
        this.log(`Opened run folder ${runDir}.`);
        return next;
      }
      default: {
        const unknown: never = plan;
        throw new Error(`unknown open plan ${JSON.stringify(unknown)}`);
      }
    }
  }

  /** Reads a run folder from disk, in `phase`; another process runs it: its journal is followed. */
  async openFolder(runDir: string, phase: RunPhase): Promise<OpenRun> {
    const { views, events } = this.deps;
    const c = await openRunFolder(runDir, phase, {
      batchMs: this.deps.batchMs,
      send: (run) => views.emit(run, false),
      buildInjection: (run, kind) => this.deps.buildInjection(run, kind),
      injectionChanged: (run, injection) => {
        if (injection.state === 'failed') events.log('warn', `Injection ${injection.id} (${injection.kind}) failed: ${injection.error ?? ''}`);
        run.updates.mark();
      },
      warn: (line) => events.log('warn', line),
    });
    followJournal(c, () => c.updates.mark());
    return c;
  }

  /** Puts `next` on screen in place of what was there, which is let go. */
  async replace(next: OpenRun): Promise<void> {
    const { runs, views } = this.deps;
    if (runs.current) await this.leave(runs.current);
    runs.current = next;
    // The renderers replace what they show.
    await views.emit(next, true);
  }

  /** Takes a run off the screen: its waiting injections are dropped and its processes let go. */
  private async leave(previous: OpenRun): Promise<void> {
    previous.injections.cancelWaiting('another run was opened before this one was built');
    previous.updates.cancel();
    await releaseRun(previous, this.deps.events);
    stopFollowing(previous);
  }

  private log(line: string): void {
    this.deps.events.log('info', line);
  }
}
