// A person's Stop, Pause and Resume on the run on screen, as the phase
// machine (runPhaseMachine.ts) says each goes from each phase: a loop running
// here stops or pauses after its session in progress; anything else lets its
// processes go, or starts its sessions again where its journal ends. Each is
// called inside `HeldRuns.exclusive`, on the run it acts on.
import path from 'node:path';
import { LabError } from '../contract';
import type { LabEventBus } from './eventBus';
import type { HeldRuns } from './heldRuns';
import { isLiveModeRun, liveModeOf, type OpenRun } from './openRun';
import { canPause, resumeStep, stopStep } from './runPhaseMachine';
import { holdingOf, releaseRun } from './runHold';
import type { RunLauncher } from './runLaunch';

export class RunControls {
  constructor(
    private readonly runs: HeldRuns,
    private readonly launcher: RunLauncher,
    private readonly events: LabEventBus,
  ) {}

  async resume(c: OpenRun): Promise<void> {
    const step = resumeStep(c.phase, holdingOf(c));
    if (step.kind === 'continue' && c.held.kind === 'live') {
      c.phase = step.next;
      c.held.run.continueSessions();
      this.log('Resumed: the next session starts.');
      c.updates.mark();
      return;
    }
    this.runs.refuseWhileRunning('resume');
    if (c.held.kind === 'disk' && c.held.heldBy !== null) {
      throw new LabError('conflict', `process ${c.held.heldBy} is running this run; it cannot be resumed here too`);
    }
    if (c.events.some((e) => e.type === 'run-completed')) throw new LabError('conflict', 'this run is complete: there is nothing to resume');
    await releaseRun(c, this.events);
    c.phase = 'starting';
    c.error = null;
    if (isLiveModeRun(c)) {
      // A live-mode run is continued by live mode (the recipe's tasks would be numbered over its sessions).
      this.launcher.live(c);
      this.log(`Continuing live mode ${path.basename(c.runDir)}: the trainer is fed again from its journaled sessions.`);
      return;
    }
    this.launcher.sessions(c);
    this.log(`Resuming run ${path.basename(c.runDir)} where its journal ends.`);
  }

  async stop(c: OpenRun): Promise<void> {
    if (liveModeOf(c) !== null) {
      // Live mode stops at once: its open conversations are journaled, the trainer's step finishes, every process stops.
      c.phase = 'stopping';
      c.updates.mark();
      this.log('Stopping live mode: journaling the open conversations, letting the trainer finish its step.');
      await releaseRun(c, this.events);
      c.phase = c.phase === 'stopping' ? 'stopped' : c.phase;
      c.updates.mark();
      return;
    }
    const step = stopStep(c.phase, holdingOf(c));
    switch (step.kind) {
      case 'stop-after-session':
        if (c.held.kind !== 'live') throw new Error('a run stopped after its session is held here');
        c.phase = step.next;
        c.held.run.requestStop();
        this.log('Stopping after the session in progress; Resume continues the run.');
        break;
      case 'wait':
        throw new LabError('conflict', `the run is ${c.phase}; try again in a moment`);
      case 'let-go':
        await releaseRun(c, this.events);
        break;
      default: {
        const unknown: never = step;
        throw new Error(`unknown stop step ${JSON.stringify(unknown)}`);
      }
    }
    c.updates.mark();
  }

  /**
   * Pauses the live run after the session in progress: the gateway keeps
   * serving, the trainer finishes its step, the gate goes on deciding, and
   * a person's requests still work; Resume starts the next session.
   */
  pause(c: OpenRun): void {
    if (liveModeOf(c) !== null) throw new LabError('conflict', 'live mode serves outside clients and has no sessions of its own to pause: stop it instead');
    if (!canPause(c.phase, holdingOf(c)) || c.held.kind !== 'live') {
      throw new LabError('conflict', `only a running run can be paused; this one is ${c.phase}`);
    }
    c.phase = 'pausing';
    void c.held.run.requestPause().then(() => {
      if (!this.runs.holds(c) || c.phase !== 'pausing') return;
      c.phase = 'paused';
      this.log('Paused: no session runs; serving, the trainer and the gate go on. Resume starts the next session.');
      c.updates.mark();
    });
    this.log('Pausing after the session in progress.');
    c.updates.mark();
  }

  private log(line: string): void {
    this.events.log('info', line);
  }
}
