// The desktop's hold on runs: the run folder on screen, and at most one run
// whose sessions this lab runs — on screen, or in the background while the
// person looks at another run (backgroundRun.ts says which goes where). It
// starts, stops and resumes runs, opens folders from disk, passes a person's
// requests to the run's release gate (which decides: nothing here writes the
// pointer), and streams what changes to the renderers.
//
// This class only composes its parts, each one job: what is held and the
// order its changes go in (heldRuns.ts), a new run folder (newRunFolder.ts),
// starting a run's processes here (runLaunch.ts), holding and letting go of
// them (runHold.ts), Stop, Pause and Resume (runControls.ts), which run is on
// screen (screenRuns.ts) and what the renderers are sent (runViewSender.ts).
// Beside them: the run list (runList.ts), a held run (openRun.ts), the phase
// state machine (runPhaseMachine.ts), where a request goes
// (requestRouting.ts), following another process's journal
// (journalFollower.ts), update batching (viewUpdates.ts) and the log's
// narration (runNarration.ts); a person's requests to the gate are
// gateRequests.ts's, those about live mode liveRequests.ts's.
import path from 'node:path';
import type { BadCandidateKind, RunFolderInfo, RunView, RunningView } from '../contract';
import { LabError } from '../contract';
import type { LiveRun } from '../run/liveRun';
import type { ControlRequest } from '../surfaces/control/controlServer';
import type { LabEventBus } from './eventBus';
import { GateRequests } from './gateRequests';
import { HeldRuns } from './heldRuns';
import { stopFollowing } from './journalFollower';
import { LiveRequests } from './liveRequests';
import { newLiveRunFolder, newRunFolder, type StartLiveParams, type StartParams } from './newRunFolder';
import type { OpenRun } from './openRun';
import { runFolderPath } from './recipeCatalog';
import { candidateIdOf, routeRequest } from './requestRouting';
import { RunControls } from './runControls';
import { releaseRun } from './runHold';
import { RunLauncher } from './runLaunch';
import { listRunFolders } from './runList';
import { RunViewSender } from './runViewSender';
import { ScreenRuns } from './screenRuns';

export type RunManagerOptions = {
  recipesDir: string;
  runsDir: string;
  events: LabEventBus;
  /** How long journal events are gathered before one update goes out (ms). */
  batchMs?: number;
};

export class RunManager {
  private readonly runs = new HeldRuns();
  private readonly views: RunViewSender;
  private readonly launcher: RunLauncher;
  private readonly controls: RunControls;
  private readonly screen: ScreenRuns;
  /** A person's requests to the gate of the run on screen, and reads of its evidence. */
  readonly requests: GateRequests;
  /** A person's requests about live mode on the run on screen (where clients connect, transcripts, exclusions). */
  readonly live: LiveRequests;

  constructor(private readonly options: RunManagerOptions) {
    const { events } = options;
    this.views = new RunViewSender(this.runs, events);
    this.launcher = new RunLauncher(this.runs, events);
    this.controls = new RunControls(this.runs, this.launcher, events);
    this.screen = new ScreenRuns({
      runs: this.runs,
      views: this.views,
      events,
      batchMs: options.batchMs ?? 50,
      buildInjection: (c, kind) => this.buildInjection(c, kind),
    });
    this.requests = new GateRequests({
      current: () => this.runs.requireCurrent(),
      route: (c, request, route) => this.route(c, request, route),
      view: (c) => this.views.view(c),
      log: (line) => this.log(line),
    });
    this.live = new LiveRequests({
      current: () => this.runs.requireCurrent(),
      route: (c, request, route) => this.route(c, request, route),
      log: (line) => this.log(line),
    });
  }

  get runsDir(): string {
    return this.options.runsDir;
  }

  // ── what is on screen ────────────────────────────────────────────────────

  async currentView(): Promise<RunView | null> {
    const c = this.runs.current;
    if (!c) return null;
    await c.details.load(c.events);
    return this.views.view(c);
  }

  listRuns(): Promise<RunFolderInfo[]> {
    return listRunFolders(this.options.runsDir);
  }

  /** The run whose sessions this lab runs, on screen or in the background. */
  running(): RunningView {
    return this.runs.running();
  }

  // ── starting, stopping, resuming, opening ────────────────────────────────

  start(params: StartParams): Promise<RunView> {
    return this.runs.exclusive(async () => {
      this.runs.refuseWhileRunning('start another run');
      const runDir = await newRunFolder(this.options.recipesDir, this.options.runsDir, params);
      const c = await this.putOnScreen(runDir);
      this.log(`Started run ${path.basename(runDir)}: starting the engines, the trainer and the gateway.`);
      this.launcher.sessions(c);
      return this.views.view(c);
    });
  }

  /**
   * Starts live mode on a recipe: a new live-mode run folder, its serving
   * engine, probe engine, trainer and gate, and the gateway serving outside
   * clients. It counts as this lab's one run of sessions.
   */
  startLive(params: StartLiveParams): Promise<RunView> {
    return this.runs.exclusive(async () => {
      this.runs.refuseWhileRunning('start live mode');
      const runDir = await newLiveRunFolder(this.options.recipesDir, this.options.runsDir, params);
      const c = await this.putOnScreen(runDir);
      this.log(`Started live mode ${path.basename(runDir)}: starting the engines, the trainer and the gateway.`);
      this.launcher.live(c, params.idleSeconds);
      return this.views.view(c);
    });
  }

  /**
   * Puts a run folder on screen. A run whose sessions this lab runs keeps
   * running in the background meanwhile; opening it again brings it back,
   * its view sent whole (the renderer rebuilds it like any open).
   */
  open(where: { runId: string } | { path: string }): Promise<RunView> {
    return this.runs.exclusive(async () => {
      const runDir = 'runId' in where ? runFolderPath(this.options.runsDir, where.runId) : path.resolve(where.path);
      return this.views.view(await this.screen.open(runDir));
    });
  }

  resume(): Promise<RunView> {
    return this.onCurrent((c) => this.controls.resume(c));
  }

  stop(): Promise<RunView> {
    return this.onCurrent((c) => this.controls.stop(c));
  }

  /** Pauses the live run after the session in progress (runControls.ts says what goes on meanwhile). */
  pause(): Promise<RunView> {
    return this.onCurrent(async (c) => this.controls.pause(c));
  }

  /**
   * Shuts down whatever this process runs, at once: a session in progress is
   * cut off like a crash would cut it (it was never journaled, so a resume
   * runs it again); everything journaled stays.
   */
  async close(): Promise<void> {
    this.runs.closing = true;
    for (const c of [this.runs.current, this.runs.background]) {
      if (!c) continue;
      c.updates.cancel();
      await this.runs.exclusive(() => releaseRun(c, this.options.events));
      await c.sessionsDone?.catch(() => undefined);
      stopFollowing(c);
    }
  }

  // ── a person's requests to the gate ──────────────────────────────────────

  /** Builds and stages one injected candidate on run `c` (the injection queue's builder). */
  private async buildInjection(c: OpenRun, kind: BadCandidateKind): Promise<string> {
    if (!this.runs.holds(c)) throw new LabError('conflict', 'the run was let go before this candidate was built');
    const id = await this.route(c, { action: 'inject', kind }, { here: async (run) => (await run.inject({ kind })).id, there: candidateIdOf });
    this.log(`Injected a ${kind} candidate: ${id}. The gate decides.`);
    return id;
  }

  private route<T>(c: OpenRun, request: ControlRequest, route: { here: (run: LiveRun) => Promise<T>; there: (result: unknown) => T }): Promise<T> {
    return routeRequest(c, request, route, {
      liveRunFor: (run) => this.runs.exclusive(() => this.launcher.gateFor(run)),
      decidedHere: (run) => run.updates.flush(),
    });
  }

  // ── helpers ──────────────────────────────────────────────────────────────

  /** A new run folder goes on screen, starting, in place of what was there. */
  private async putOnScreen(runDir: string): Promise<OpenRun> {
    const c = await this.screen.openFolder(runDir, 'starting');
    await this.screen.replace(c);
    return c;
  }

  /** Does `act` on the run on screen, in turn with every other change of what is held; answers its view after. */
  private onCurrent(act: (c: OpenRun) => Promise<void>): Promise<RunView> {
    return this.runs.exclusive(async () => {
      const c = this.runs.requireCurrent();
      await act(c);
      return this.views.view(c);
    });
  }

  private log(line: string): void {
    this.options.events.log('info', line);
  }
}
