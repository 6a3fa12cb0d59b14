// What the renderers are sent of the runs: the whole view of the run on
// screen, then only what changed (runViewDiff.ts), numbered so that a
// renderer that missed one asks again; and the running run for the top bar,
// whichever run is on screen.
import type { RunPatch, RunView } from '../contract';
import type { LabEventBus } from './eventBus';
import type { HeldRuns } from './heldRuns';
import { isLiveModeRun, liveModeOf, type OpenRun } from './openRun';
import { sessionInProgress } from './runPhaseMachine';
import { buildRunView, recipeOf, type RunLiveness } from './runView';
import { diffRunView } from './runViewDiff';

export class RunViewSender {
  /** The running run last announced (`labRuns.runningChanged`), as sent. */
  private runningSent = 'null';

  constructor(
    private readonly runs: HeldRuns,
    private readonly events: LabEventBus,
  ) {}

  /** The run's view as update `update` would send it. */
  view(c: OpenRun, update = c.update): RunView {
    const done = new Set(c.events.flatMap((e) => (e.type === 'session-completed' ? [e.session] : [])));
    return buildRunView({
      runDir: c.runDir,
      events: c.events,
      details: c.details.all,
      liveness: {
        phase: c.phase,
        error: c.error,
        heldBy: c.held.kind === 'disk' ? c.held.heldBy : null,
        running: isLiveModeRun(c) ? null : sessionInProgress(c.phase, done, recipeOf(c.events).tasks.sessions),
        injections: c.injections.list(),
        serving: liveServing(c),
        update,
      },
    });
  }

  /** Sends what changed of the run's view (`reset`: the whole view, which the renderers rebuild from). */
  async emit(c: OpenRun, reset: boolean): Promise<void> {
    // The running run is announced whichever run is on screen; only the one on screen streams its view.
    this.announceRunning();
    if (c !== this.runs.current) return;
    for (const problem of await c.details.load(c.events)) this.events.log('warn', problem);
    const patch: RunPatch | null = diffRunView(c.sent, this.view(c, c.update + 1), reset);
    if (!patch) return;
    c.update += 1;
    this.events.emit('labRuns.changed', patch);
  }

  /** Tells the renderers about the running run when what they show of it changed. */
  private announceRunning(): void {
    const view = this.runs.running();
    const text = JSON.stringify(view);
    if (text === this.runningSent) return;
    this.runningSent = text;
    this.events.emit('labRuns.runningChanged', view);
  }
}

/** Where clients connect and the conversations not yet journaled, while live mode serves the run here. */
function liveServing(c: OpenRun): RunLiveness['serving'] {
  const live = liveModeOf(c);
  if (live === null) return null;
  return {
    endpoint: { baseUrl: live.endpoint.baseUrl, model: live.endpoint.model },
    open: live.sessions.openConversations().map((o) => ({
      name: o.name,
      recognisedBy: o.by,
      turns: o.turns,
      judged: o.judged,
      toTrain: o.toTrain,
      helperTurns: o.helperTurns,
      lastTurnAt: new Date(o.lastServedAt).toISOString(),
      exclusion: o.exclusion,
    })),
  };
}
