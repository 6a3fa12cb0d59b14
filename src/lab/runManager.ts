// The desktop's hold on runs: the run folder on screen, and at most one run
// whose sessions this lab runs — on screen, or in the background while the
// person looks at another run (backgroundRun.ts says which goes where). It
// starts, stops and resumes runs, opens folders from disk, passes a person's
// requests to the run's release gate (which decides: nothing here writes the
// pointer), and streams what changes to the renderers.
//
// Its parts live beside it: the run list (runList.ts), a held run
// (openRun.ts), the phase state machine (runPhaseMachine.ts), where a request
// goes (requestRouting.ts), following another process's journal
// (journalFollower.ts), update batching (viewUpdates.ts) and the log's
// narration (runNarration.ts); a person's requests to the gate are
// gateRequests.ts's.
import path from 'node:path';
import type { BadCandidateKind, RunFolderInfo, RunPatch, RunPhase, RunView, RunningView } from '../contract';
import { isSettling, LabError } from '../contract';
import { loadRunRecipe } from '../run/recipeSchemas';
import type { ConfirmMode } from '../core/recipe/recipeSchema';
import { startControlServer, type ControlRequest } from '../surfaces/control/controlServer';
import { createRun, type RunOverrides } from '../run/createRun';
import { LiveRun } from '../run/liveRun';
import { openLiveMode, type LiveMode } from '../run/live/liveMode';
import { planOpen, refusalWhileRunning, runningRun, runningView } from './backgroundRun';
import type { LabEventBus } from './eventBus';
import { GateRequests } from './gateRequests';
import { followJournal, refreshFromDisk, stopFollowing } from './journalFollower';
import { asLabError } from './labErrors';
import { LiveRequests } from './liveRequests';
import { isLiveModeRun, liveModeOf, openRunFolder, type OpenRun } from './openRun';
import { recipePath, runFolderPath } from './recipeCatalog';
import { candidateIdOf, routeRequest } from './requestRouting';
import { listRunFolders } from './runList';
import { narration, sessionsEndedLine } from './runNarration';
import { canPause, phaseAfterLettingGo, phaseAfterSessions, resumeStep, sessionInProgress, stopStep, type Holding } from './runPhaseMachine';
import { buildRunView, recipeOf, type RunLiveness } from './runView';
import { diffRunView } from './runViewDiff';

export type RunManagerOptions = {
  recipesDir: string;
  runsDir: string;
  events: LabEventBus;
  /** How long journal events are gathered before one update goes out (ms). */
  batchMs?: number;
};

export class RunManager {
  /** The run on screen. */
  private current: OpenRun | null = null;
  /** The run whose sessions this lab runs while another is on screen (it goes on untouched), or null. */
  private background: OpenRun | null = null;
  /** The running run last announced (`labRuns.runningChanged`), as sent. */
  private runningSent = 'null';
  private closing = false;
  private lifecycle: Promise<unknown> = Promise.resolve();
  private readonly batchMs: number;
  /** A person's requests to the gate of the run on screen, and reads of its evidence. */
  readonly requests: GateRequests;
  /** A person's requests about live mode on the run on screen (where clients connect, transcripts, exclusions). */
  readonly live: LiveRequests;

  constructor(private readonly options: RunManagerOptions) {
    this.batchMs = options.batchMs ?? 50;
    this.requests = new GateRequests({
      current: () => this.requireCurrent(),
      route: (c, request, route) => this.route(c, request, route),
      view: (c) => this.view(c),
      log: (line) => this.log(line),
    });
    this.live = new LiveRequests({
      current: () => this.requireCurrent(),
      route: (c, request, route) => this.route(c, request, route),
      log: (line) => this.log(line),
    });
  }

  get runsDir(): string {
    return this.options.runsDir;
  }

  // ── what is on screen ────────────────────────────────────────────────────

  async currentView(): Promise<RunView | null> {
    const c = this.current;
    if (!c) return null;
    await c.details.load(c.events);
    return this.view(c);
  }

  listRuns(): Promise<RunFolderInfo[]> {
    return listRunFolders(this.options.runsDir);
  }

  // ── starting, stopping, resuming, opening ────────────────────────────────

  start(params: { recipe: string; seed?: number | undefined; confirm: ConfirmMode; sessions?: number | undefined }): Promise<RunView> {
    return this.exclusive(async () => {
      this.refuseWhileRunning('start another run');
      const file = recipePath(this.options.recipesDir, params.recipe);
      const overrides: RunOverrides = { confirm: params.confirm };
      if (params.seed !== undefined) overrides.seed = params.seed;
      if (params.sessions !== undefined) overrides.sessions = params.sessions;
      const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
      let runDir: string;
      try {
        // The folder names the seed that runs: the one asked for, else the recipe's own.
        const seed = params.seed ?? (await loadRunRecipe(file)).recipe.seed;
        const name = `${params.recipe.replace(/\.ya?ml$/, '')}-seed${seed}-${stamp}`;
        runDir = await createRun(file, path.join(this.options.runsDir, name), overrides);
      } catch (error) {
        throw asLabError(error);
      }
      await this.replaceCurrent(await this.openFolder(runDir, 'starting'));
      this.log(`Started run ${path.basename(runDir)}: starting the engines, the trainer and the gateway.`);
      this.launchSessions(this.current!);
      return this.view(this.current!);
    });
  }

  /**
   * Starts live mode on a recipe: a new live-mode run folder, its serving
   * engine, probe engine, trainer and gate, and the gateway serving outside
   * clients. It counts as this lab's one run of sessions.
   */
  startLive(params: { recipe: string; confirm: ConfirmMode; idleSeconds?: number | undefined; maxModelLen?: number | undefined }): Promise<RunView> {
    return this.exclusive(async () => {
      this.refuseWhileRunning('start live mode');
      const file = recipePath(this.options.recipesDir, params.recipe);
      const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
      let runDir: string;
      try {
        runDir = await createRun(
          file,
          path.join(this.options.runsDir, `${params.recipe.replace(/\.ya?ml$/, '')}-live-${stamp}`),
          { confirm: params.confirm, ...(params.maxModelLen !== undefined ? { maxModelLen: params.maxModelLen } : {}) },
          { live: true },
        );
      } catch (error) {
        throw asLabError(error);
      }
      await this.replaceCurrent(await this.openFolder(runDir, 'starting'));
      this.log(`Started live mode ${path.basename(runDir)}: starting the engines, the trainer and the gateway.`);
      this.launchLive(this.current!, params.idleSeconds);
      return this.view(this.current!);
    });
  }

  /**
   * Puts a run folder on screen. A run whose sessions this lab runs keeps
   * running in the background meanwhile; opening it again brings it back,
   * its view sent whole (the renderer rebuilds it like any open).
   */
  open(where: { runId: string } | { path: string }): Promise<RunView> {
    return this.exclusive(async () => {
      const runDir = 'runId' in where ? runFolderPath(this.options.runsDir, where.runId) : path.resolve(where.path);
      const plan = planOpen(this.current, this.background, runDir);
      switch (plan.kind) {
        case 'stay':
          await this.emit(plan.run, true);
          return this.view(plan.run);
        case 'bring-back':
          if (plan.leaving) await this.leaveScreen(plan.leaving);
          this.background = null;
          this.current = plan.run;
          await this.emit(plan.run, true);
          this.log(`Back to run ${path.basename(plan.run.runDir)}: it is ${plan.run.phase}.`);
          return this.view(plan.run);
        case 'open': {
          const next = await this.openFolder(runDir, 'viewing');
          if (plan.park) {
            this.background = plan.park;
            this.current = null;
            this.log(`${path.basename(plan.park.runDir)} keeps running in the background; the top bar leads back to it.`);
          }
          await this.replaceCurrent(next);
          this.log(`Opened run folder ${runDir}.`);
          return this.view(next);
        }
        default: {
          const unknown: never = plan;
          throw new Error(`unknown open plan ${JSON.stringify(unknown)}`);
        }
      }
    });
  }

  resume(): Promise<RunView> {
    return this.exclusive(async () => {
      const c = this.requireCurrent();
      const step = resumeStep(c.phase, holding(c));
      if (step.kind === 'continue' && c.held.kind === 'live') {
        c.phase = step.next;
        c.held.run.continueSessions();
        this.log('Resumed: the next session starts.');
        c.updates.mark();
        return this.view(c);
      }
      this.refuseWhileRunning('resume');
      if (c.held.kind === 'disk' && c.held.heldBy !== null) {
        throw new LabError('conflict', `process ${c.held.heldBy} is running this run; it cannot be resumed here too`);
      }
      if (c.events.some((e) => e.type === 'run-completed')) throw new LabError('conflict', 'this run is complete: there is nothing to resume');
      await this.release(c);
      c.phase = 'starting';
      c.error = null;
      if (isLiveModeRun(c)) {
        // A live-mode run is continued by live mode (the recipe's tasks would be numbered over its sessions).
        this.launchLive(c);
        this.log(`Continuing live mode ${path.basename(c.runDir)}: the trainer is fed again from its journaled sessions.`);
        return this.view(c);
      }
      this.launchSessions(c);
      this.log(`Resuming run ${path.basename(c.runDir)} where its journal ends.`);
      return this.view(c);
    });
  }

  stop(): Promise<RunView> {
    return this.exclusive(async () => {
      const c = this.requireCurrent();
      if (liveModeOf(c) !== null) {
        // Live mode stops at once: its open conversations are journaled, the trainer's step finishes, every process stops.
        c.phase = 'stopping';
        c.updates.mark();
        this.log('Stopping live mode: journaling the open conversations, letting the trainer finish its step.');
        await this.release(c);
        c.phase = c.phase === 'stopping' ? 'stopped' : c.phase;
        c.updates.mark();
        return this.view(c);
      }
      const step = stopStep(c.phase, holding(c));
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
          await this.release(c);
          break;
        default: {
          const unknown: never = step;
          throw new Error(`unknown stop step ${JSON.stringify(unknown)}`);
        }
      }
      c.updates.mark();
      return this.view(c);
    });
  }

  /**
   * Pauses the live run after the session in progress: the gateway keeps
   * serving, the trainer finishes its step, the gate goes on deciding, and
   * a person's requests still work; Resume starts the next session.
   */
  pause(): Promise<RunView> {
    return this.exclusive(async () => {
      const c = this.requireCurrent();
      if (liveModeOf(c) !== null) throw new LabError('conflict', 'live mode serves outside clients and has no sessions of its own to pause: stop it instead');
      if (!canPause(c.phase, holding(c)) || c.held.kind !== 'live') {
        throw new LabError('conflict', `only a running run can be paused; this one is ${c.phase}`);
      }
      c.phase = 'pausing';
      void c.held.run.requestPause().then(() => {
        if (!this.holds(c) || c.phase !== 'pausing') return;
        c.phase = 'paused';
        this.log('Paused: no session runs; serving, the trainer and the gate go on. Resume starts the next session.');
        c.updates.mark();
      });
      this.log('Pausing after the session in progress.');
      c.updates.mark();
      return this.view(c);
    });
  }

  /**
   * Shuts down whatever this process runs, at once: a session in progress is
   * cut off like a crash would cut it (it was never journaled, so a resume
   * runs it again); everything journaled stays.
   */
  async close(): Promise<void> {
    this.closing = true;
    for (const c of [this.current, this.background]) {
      if (!c) continue;
      c.updates.cancel();
      await this.exclusive(() => this.release(c));
      await c.sessionsDone?.catch(() => undefined);
      stopFollowing(c);
    }
  }

  /** The run whose sessions this lab runs, on screen or in the background. */
  running(): RunningView {
    const run = runningRun(this.current, this.background);
    return { run: run === null ? null : runningView(run) };
  }

  // ── a person's requests to the gate ──────────────────────────────────────

  /** Builds and stages one injected candidate on run `c` (the injection queue's builder). */
  private async buildInjection(c: OpenRun, kind: BadCandidateKind): Promise<string> {
    if (!this.holds(c)) throw new LabError('conflict', 'the run was let go before this candidate was built');
    const id = await this.route(c, { action: 'inject', kind }, { here: async (run) => (await run.inject({ kind })).id, there: candidateIdOf });
    this.log(`Injected a ${kind} candidate: ${id}. The gate decides.`);
    return id;
  }

  private route<T>(c: OpenRun, request: ControlRequest, route: { here: (run: LiveRun) => Promise<T>; there: (result: unknown) => T }): Promise<T> {
    return routeRequest(c, request, route, {
      liveRunFor: (run) => this.exclusive(() => this.liveForActions(run)),
      decidedHere: (run) => run.updates.flush(),
    });
  }

  private async liveForActions(c: OpenRun): Promise<LiveRun> {
    if (!this.holds(c)) throw new LabError('conflict', 'the run on screen changed; try again');
    if (c.held.kind === 'live') return c.held.run;
    if (isSettling(c.phase)) throw new LabError('conflict', `the run is ${c.phase}; try again in a moment`);
    // Nothing runs it: open its gate (and probe engine) here for the decision.
    const run = await LiveRun.open(c.runDir, { mode: 'gate', onLog: (line) => this.log(line) });
    await this.hold(c, run, 'gate');
    c.phase = 'gate-only';
    c.error = null;
    c.updates.mark();
    return run;
  }

  // ── holding runs ─────────────────────────────────────────────────────────

  private launchSessions(c: OpenRun): void {
    c.sessionsDone = (async () => {
      let run: LiveRun;
      try {
        run = await LiveRun.open(c.runDir, { mode: 'run', onLog: (line) => this.log(line) });
      } catch (error) {
        c.phase = 'failed';
        c.error = `the run could not start: ${(error as Error).message}`;
        this.options.events.log('error', c.error);
        c.updates.mark();
        return;
      }
      if (!this.holds(c)) {
        await run.close();
        return;
      }
      await this.hold(c, run, 'run');
      c.phase = 'running';
      c.updates.mark();
      try {
        const summary = await run.runSessions();
        c.phase = phaseAfterSessions(summary.completed);
        this.log(sessionsEndedLine(summary));
      } catch (error) {
        c.phase = 'failed';
        c.error = (error as Error).message;
        if (!this.closing) this.options.events.log('error', `The run failed: ${c.error}`);
      }
      // A stopped or failed run lets its engines go; a complete one on screen
      // keeps its gate open, so a candidate still awaiting confirmation can be
      // decided at once. In the background it lets go too: opening it opens its gate again.
      await this.exclusive(async () => {
        if (c === this.background) {
          await this.release(c);
          this.background = null;
        } else if (c.phase !== 'completed') await this.release(c);
      });
      c.updates.mark();
    })();
    c.sessionsDone
      .finally(() => {
        if (this.current === c) c.sessionsDone = null;
      })
      .catch(() => undefined);
  }

  /** Serves outside clients on a live-mode run folder until it is stopped (or fails: then it lets go, saying why). */
  private launchLive(c: OpenRun, idleSeconds?: number): void {
    c.sessionsDone = (async () => {
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
        this.options.events.log('error', c.error);
        c.updates.mark();
        return;
      }
      if (!this.holds(c)) {
        await live.close();
        return;
      }
      await this.hold(c, live.run, 'live', live);
      c.phase = 'running';
      c.updates.mark();
      this.log(`Live mode serves at ${live.endpoint.baseUrl} (model ${live.endpoint.model}); the Live page shows the token.`);
    })();
    c.sessionsDone
      .finally(() => {
        if (this.current === c) c.sessionsDone = null;
      })
      .catch(() => undefined);
  }

  /** Live mode hit a failure it cannot go on after (its journal, its trainer): it lets go of its processes and says why. */
  private failLive(c: OpenRun, error: Error): Promise<void> {
    return this.exclusive(async () => {
      if (!this.holds(c) || liveModeOf(c) === null) return;
      if (!this.closing) this.options.events.log('error', `Live mode failed: ${error.message}`);
      await this.release(c);
      c.phase = 'failed';
      c.error = error.message;
      if (c === this.background) this.background = null;
      c.updates.mark();
    });
  }

  /** Holds the run here; resolves once its control endpoint is up (or could not start: then a warning says so). */
  private hold(c: OpenRun, run: LiveRun, mode: 'run' | 'gate' | 'live', liveMode: LiveMode | null = null): Promise<unknown> {
    stopFollowing(c);
    c.events = run.journal.events;
    const unsubscribe = run.journal.onEvent((event) => {
      const line = narration(event);
      if (line !== null) this.log(line);
      c.updates.mark();
    });
    // The run lock keeps every other process out of the run, so the CLI's decisions come in through here, as they do to `gatelab run`.
    const control = startControlServer(run).catch((error: unknown) => {
      this.options.events.log('warn', `gatelab confirm|reject from another process cannot reach this run: ${(error as Error).message}`);
      return null;
    });
    c.held = { kind: 'live', run, mode, liveMode, unsubscribe, control };
    return control;
  }

  /** Lets go of the LiveRun (closing its processes); the view stays, read from disk. */
  private async release(c: OpenRun): Promise<void> {
    if (c.held.kind === 'disk') return;
    const { run, liveMode, unsubscribe, control } = c.held;
    try {
      await (await control)?.close();
      // Live mode journals its open conversations first (their events still reach the view), then closes the run.
      if (liveMode !== null) await liveMode.close();
      else await run.close();
    } catch (error) {
      this.options.events.log('warn', `closing the run: ${(error as Error).message}`);
    } finally {
      unsubscribe();
    }
    c.held = { kind: 'disk', heldBy: null, poll: null };
    await refreshFromDisk(c);
    c.phase = phaseAfterLettingGo(c.phase);
  }

  private async openFolder(runDir: string, phase: RunPhase): Promise<OpenRun> {
    const c = await openRunFolder(runDir, phase, {
      batchMs: this.batchMs,
      send: (run) => this.emit(run, false),
      buildInjection: (run, kind) => this.buildInjection(run, kind),
      injectionChanged: (run, injection) => {
        if (injection.state === 'failed') this.options.events.log('warn', `Injection ${injection.id} (${injection.kind}) failed: ${injection.error ?? ''}`);
        run.updates.mark();
      },
      warn: (line) => this.options.events.log('warn', line),
    });
    // Another process runs it: follow its journal.
    followJournal(c, () => c.updates.mark());
    return c;
  }

  private async replaceCurrent(next: OpenRun): Promise<void> {
    if (this.current) await this.leaveScreen(this.current);
    this.current = next;
    // The renderers replace what they show.
    await this.emit(next, true);
  }

  /** Takes a run off the screen: its waiting injections are dropped and its processes let go. */
  private async leaveScreen(previous: OpenRun): Promise<void> {
    previous.injections.cancelWaiting('another run was opened before this one was built');
    previous.updates.cancel();
    await this.release(previous);
    stopFollowing(previous);
  }

  /** Whether `c` is still held here: on screen, or running in the background. */
  private holds(c: OpenRun): boolean {
    return c === this.current || c === this.background;
  }

  private refuseWhileRunning(what: string): void {
    const refusal = refusalWhileRunning(runningRun(this.current, this.background), what);
    if (refusal !== null) throw new LabError('conflict', refusal);
  }

  private requireCurrent(): OpenRun {
    if (!this.current) throw new LabError('conflict', 'no run is open: start one or open a run folder first');
    return this.current;
  }

  // ── what the renderers are sent ──────────────────────────────────────────

  private view(c: OpenRun, update = c.update): RunView {
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

  private async emit(c: OpenRun, reset: boolean): Promise<void> {
    // The running run is announced whichever run is on screen; only the one on screen streams its view.
    this.announceRunning();
    if (c !== this.current) return;
    for (const problem of await c.details.load(c.events)) this.options.events.log('warn', problem);
    const patch: RunPatch | null = diffRunView(c.sent, this.view(c, c.update + 1), reset);
    if (!patch) return;
    c.update += 1;
    this.options.events.emit('labRuns.changed', patch);
  }

  /** Tells the renderers about the running run when what they show of it changed. */
  private announceRunning(): void {
    const view = this.running();
    const text = JSON.stringify(view);
    if (text === this.runningSent) return;
    this.runningSent = text;
    this.options.events.emit('labRuns.runningChanged', view);
  }

  private log(line: string): void {
    this.options.events.log('info', line);
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.lifecycle.then(work);
    this.lifecycle = run.catch(() => undefined);
    return run;
  }
}

function holding(c: OpenRun): Holding {
  if (c.held.kind === 'disk') return 'none';
  return c.held.mode === 'gate' ? 'gate' : 'sessions';
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
