// The desktop's hold on runs: the run folder on screen, and at most one run
// whose sessions this lab runs — on screen, or in the background while the
// person looks at another run (backgroundRun.ts says which goes where). It
// starts, stops and resumes runs, opens folders
// from disk, passes a person's requests to the run's release gate (which
// decides: nothing here writes the pointer), and streams what changes to the
// renderers — batched: journal events arriving together become one
// `labRuns.changed` event carrying only what changed.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type {
  BadCandidateKind,
  CandidateView,
  InjectionView,
  ProbePair,
  RunFolderStatus,
  RunFolderInfo,
  RunPatch,
  RunPhase,
  RunView,
  RunningView,
  ServingPointerView,
  TranscriptView,
} from '../contract';
import { LabError } from '../contract';
import { GateRequestError } from '../core/gate/releaseGate';
import { IllegalTransitionError } from '../core/gate/gateState';
import { readJournal } from '../core/journal/appendOnlyJournal';
import { journalEventSchema, type JournalEvent } from '../core/journal/journalEvents';
import { loadRecipe, RecipeError } from '../core/recipe/loadRecipe';
import { askLiveRun, type ControlRequest } from '../surfaces/control/controlServer';
import { LiveRun } from '../run/liveRun';
import { createRun, type RunOverrides } from '../run/createRun';
import { RunNotRunnableError } from '../run/recipeBackends';
import { liveHolder, RunBusyError, runPaths } from '../run/runFolder';
import { statusFromEvents } from '../run/runStatus';
import { planOpen, refusalWhileRunning, runningRun, runningView } from './backgroundRun';
import type { LabEventBus } from './eventBus';
import { readProbeRound } from './probeEvidence';
import { readTranscriptFile, transcriptView } from './sessionTranscript';
import { recipePath, runFolderPath } from './recipeCatalog';
import { InjectionQueue } from './injectionQueue';
import { buildRunView, recipeOf } from './runView';
import { SessionDetailCache } from './sessionDetails';
import { diffRunView, emptySentState, type SentState } from './runViewDiff';

export type RunManagerOptions = {
  recipesDir: string;
  runsDir: string;
  events: LabEventBus;
  /** How long journal events are gathered before one update goes out (ms). */
  batchMs?: number;
};

type Held =
  /** This process runs it: sessions (`run`) or only its gate and probe engine (`gate`). */
  | { kind: 'live'; run: LiveRun; mode: 'run' | 'gate'; unsubscribe: () => void }
  /** Read from disk; `heldBy` is another process running it (polled), or null. */
  | { kind: 'disk'; heldBy: number | null; poll: ReturnType<typeof setInterval> | null };

type Current = {
  runDir: string;
  events: JournalEvent[];
  details: SessionDetailCache;
  held: Held;
  phase: RunPhase;
  error: string | null;
  /** Updates sent for this view (the renderer's gap check). */
  update: number;
  sent: SentState;
  /** A flush is scheduled or running. */
  flushing: Promise<void> | null;
  flushTimer: ReturnType<typeof setTimeout> | null;
  dirty: boolean;
  /** The run's sessions, while they run. */
  sessionsDone: Promise<void> | null;
  /** A person's injection requests, built in the background one at a time. */
  injections: InjectionQueue;
};

const POLL_MS = 1000;

export class RunManager {
  /** The run on screen. */
  private current: Current | null = null;
  /** The run whose sessions this lab runs while another is on screen (it goes on untouched), or null. */
  private background: Current | null = null;
  /** The running run last announced (`labRuns.runningChanged`), as sent. */
  private runningSent = 'null';
  private closing = false;
  private lifecycle: Promise<unknown> = Promise.resolve();
  private readonly batchMs: number;

  constructor(private readonly options: RunManagerOptions) {
    this.batchMs = options.batchMs ?? 50;
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

  async listRuns(): Promise<RunFolderInfo[]> {
    let names: string[];
    try {
      names = await readdir(this.options.runsDir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const runs: RunFolderInfo[] = [];
    for (const name of names) {
      const dir = path.join(this.options.runsDir, name);
      const events = await readJournal(runPaths(dir).journal, journalEventSchema).then(
        (r) => r.events,
        () => [],
      );
      if (events[0]?.type !== 'run-started') continue;
      try {
        const status = statusFromEvents(events);
        const holder = await liveHolder(dir);
        runs.push({
          runId: name,
          recipeName: status.recipe,
          status: folderStatus(holder !== undefined, status.completed, status.failure),
          failure: status.failure,
          startedAt: events[0].at,
          sessionsCompleted: status.sessions.completed,
          sessionsPlanned: status.sessions.planned,
          completed: status.completed,
          serving: status.serving.version,
          awaitingConfirm: status.candidates.filter((c) => c.state === 'awaiting-confirm').map((c) => c.id),
          heldBy: holder ?? null,
        });
      } catch {
        // A folder whose journal cannot be folded is not listed (opening it names the problem).
      }
    }
    return runs.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
  }

  // ── starting, stopping, resuming, opening ────────────────────────────────

  start(params: { recipe: string; seed?: number | undefined; confirm: 'auto' | 'manual'; sessions?: number | undefined }): Promise<RunView> {
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
        const seed = params.seed ?? (await loadRecipe(file)).recipe.seed;
        const name = `${params.recipe.replace(/\.ya?ml$/, '')}-seed${seed}-${stamp}`;
        runDir = await createRun(file, path.join(this.options.runsDir, name), overrides);
      } catch (error) {
        throw asLabError(error);
      }
      await this.replaceCurrent(await this.diskView(runDir, 'starting'));
      this.options.events.log('info', `Started run ${path.basename(runDir)}: starting the engines, the trainer and the gateway.`);
      this.launchSessions(this.current!);
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
          this.options.events.log('info', `Back to run ${path.basename(plan.run.runDir)}: it is ${plan.run.phase}.`);
          return this.view(plan.run);
        case 'open': {
          const next = await this.diskView(runDir, 'viewing');
          if (plan.park) {
            this.background = plan.park;
            this.current = null;
            this.options.events.log('info', `${path.basename(plan.park.runDir)} keeps running in the background; the top bar leads back to it.`);
          }
          await this.replaceCurrent(next);
          this.options.events.log('info', `Opened run folder ${runDir}.`);
          return this.view(next);
        }
      }
    });
  }

  resume(): Promise<RunView> {
    return this.exclusive(async () => {
      const c = this.requireCurrent();
      if ((c.phase === 'paused' || c.phase === 'pausing') && c.held.kind === 'live') {
        c.phase = 'running';
        c.held.run.continueSessions();
        this.options.events.log('info', 'Resumed: the next session starts.');
        this.markDirty(c);
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
      this.launchSessions(c);
      this.options.events.log('info', `Resuming run ${path.basename(c.runDir)} where its journal ends.`);
      return this.view(c);
    });
  }

  stop(): Promise<RunView> {
    return this.exclusive(async () => {
      const c = this.requireCurrent();
      if ((c.phase === 'running' || c.phase === 'pausing' || c.phase === 'paused') && c.held.kind === 'live') {
        c.phase = 'stopping';
        c.held.run.requestStop();
        this.options.events.log('info', 'Stopping after the session in progress; Resume continues the run.');
        this.markDirty(c);
        return this.view(c);
      }
      if (c.phase === 'starting' || c.phase === 'stopping') {
        throw new LabError('conflict', `the run is ${c.phase}; try again in a moment`);
      }
      await this.release(c);
      this.markDirty(c);
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
      if (c.held.kind !== 'live' || c.held.mode !== 'run' || c.phase !== 'running') {
        throw new LabError('conflict', `only a running run can be paused; this one is ${c.phase}`);
      }
      c.phase = 'pausing';
      const run = c.held.run;
      void run.requestPause().then(() => {
        if (!this.holds(c) || c.phase !== 'pausing') return;
        c.phase = 'paused';
        this.options.events.log('info', 'Paused: no session runs; serving, the trainer and the gate go on. Resume starts the next session.');
        this.markDirty(c);
      });
      this.options.events.log('info', 'Pausing after the session in progress.');
      this.markDirty(c);
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
      if (c.flushTimer) clearTimeout(c.flushTimer);
      await this.exclusive(() => this.release(c));
      await c.sessionsDone?.catch(() => undefined);
      if (c.held.kind === 'disk' && c.held.poll) clearInterval(c.held.poll);
    }
  }

  /** The run whose sessions this lab runs, on screen or in the background. */
  running(): RunningView {
    const run = runningRun(this.current, this.background);
    return { run: run === null ? null : runningView(run) };
  }

  // ── a person's requests to the gate ──────────────────────────────────────

  async confirm(id: string): Promise<{ candidate: CandidateView; servingBefore: ServingPointerView; servingAfter: ServingPointerView }> {
    return this.decide({ action: 'confirm', id }, id);
  }

  async reject(id: string, reason: string): Promise<{ candidate: CandidateView; servingBefore: ServingPointerView; servingAfter: ServingPointerView }> {
    return this.decide({ action: 'reject', id, reason }, id);
  }

  /** Queues an injection request and answers at once; the candidate is built in the background (injectionQueue.ts). */
  async inject(kind: BadCandidateKind): Promise<{ injection: InjectionView; servingBefore: ServingPointerView }> {
    const c = this.requireCurrent();
    if (c.phase === 'starting' || c.phase === 'stopping') throw new LabError('conflict', `the run is ${c.phase}; inject once it has ${c.phase === 'starting' ? 'started' : 'stopped'}`);
    const before = this.pointerOf(c);
    const injection = c.injections.request(kind, before);
    this.options.events.log(
      'info',
      injection.state === 'building'
        ? `Injection ${injection.id}: building a ${kind} candidate; serving is ${before.version}. The gate decides.`
        : `Injection ${injection.id} (${kind}) queued: ${(injection.queuePosition ?? 0) + 1} in line behind the one being built.`,
    );
    return { injection, servingBefore: before };
  }

  /** Builds and stages one injected candidate on run `c` (the injection queue's builder). */
  private async buildInjection(c: Current, kind: BadCandidateKind): Promise<string> {
    if (!this.holds(c)) throw new LabError('conflict', 'the run was let go before this candidate was built');
    const id = await this.act(c, { action: 'inject', kind }, async (run) => (await run.inject({ kind })).id, (result) => idOf(result));
    this.options.events.log('info', `Injected a ${kind} candidate: ${id}. The gate decides.`);
    return id;
  }

  async rollback(version: string): Promise<{ servingBefore: ServingPointerView; servingAfter: ServingPointerView }> {
    const before = this.pointerOf(this.requireCurrent());
    await this.act(this.requireCurrent(), { action: 'rollback', version }, async (run) => run.rollback(version), () => undefined);
    const after = this.pointerOf(this.requireCurrent());
    this.options.events.log('info', `Rolled serving back: ${before.version} → ${after.version}.`);
    return { servingBefore: before, servingAfter: after };
  }

  async probeReplies(candidate: string, round: number): Promise<{ candidate: string; round: number; seed: number; servingVersion: string; pairs: ProbePair[] }> {
    const c = this.requireCurrent();
    const event = c.events.find((e) => e.type === 'probe-round' && e.id === candidate && e.round === round);
    if (!event || event.type !== 'probe-round') throw new LabError('not-found', `no probe round ${round} of ${candidate} in this run`);
    const evidence = await readProbeRound(c.runDir, event.replies);
    return { candidate, round, seed: evidence.seed, servingVersion: evidence.servingVersion, pairs: evidence.pairs };
  }

  async transcript(session: number): Promise<TranscriptView> {
    const c = this.requireCurrent();
    const event = c.events.find((e) => e.type === 'session-completed' && e.session === session);
    if (!event || event.type !== 'session-completed') throw new LabError('not-found', `session ${session} of this run has not completed`);
    try {
      return transcriptView(event, await readTranscriptFile(c.runDir, event));
    } catch (error) {
      throw new LabError('not-found', (error as Error).message);
    }
  }

  private async decide(
    request: Extract<ControlRequest, { action: 'confirm' | 'reject' }>,
    id: string,
  ): Promise<{ candidate: CandidateView; servingBefore: ServingPointerView; servingAfter: ServingPointerView }> {
    const before = this.pointerOf(this.requireCurrent());
    await this.act(
      this.requireCurrent(),
      request,
      async (run) => (request.action === 'confirm' ? run.confirm(id) : run.reject(id, request.reason)),
      () => undefined,
    );
    const candidate = this.candidateView(id);
    const after = this.pointerOf(this.requireCurrent());
    this.options.events.log(
      'info',
      request.action === 'confirm'
        ? `${id} confirmed by a person: ${candidate.state}; serving ${before.version} → ${after.version}.`
        : `${id} rejected by a person; serving stays ${after.version}.`,
    );
    return { candidate, servingBefore: before, servingAfter: after };
  }

  /**
   * Runs a request against the run's gate: this process's LiveRun; the
   * process that runs it (its control endpoint), when another does; or the
   * run opened here with its gate and probe engine only.
   */
  private async act<T>(c: Current, request: ControlRequest, here: (run: LiveRun) => Promise<T>, there: (result: unknown) => T): Promise<T> {
    try {
      if (c.held.kind === 'disk' && c.held.heldBy !== null) {
        const answer = await askLiveRun(c.runDir, request);
        if (answer) {
          await this.refreshFromDisk(c);
          return there(answer.result);
        }
      }
      const run = await this.exclusive(() => this.liveForActions(c));
      const result = await here(run);
      await this.flushNow(c);
      return result;
    } catch (error) {
      throw asLabError(error);
    }
  }

  private async liveForActions(c: Current): Promise<LiveRun> {
    if (!this.holds(c)) throw new LabError('conflict', 'the run on screen changed; try again');
    if (c.held.kind === 'live') return c.held.run;
    if (c.phase === 'starting' || c.phase === 'stopping') throw new LabError('conflict', `the run is ${c.phase}; try again in a moment`);
    // Nothing runs it: open its gate (and probe engine) here for the decision.
    const run = await LiveRun.open(c.runDir, { mode: 'gate', onLog: (line) => this.options.events.log('info', line) });
    this.hold(c, run, 'gate');
    c.phase = 'gate-only';
    c.error = null;
    this.markDirty(c);
    return run;
  }

  // ── internals ────────────────────────────────────────────────────────────

  private launchSessions(c: Current): void {
    const log = (line: string) => this.options.events.log('info', line);
    c.sessionsDone = (async () => {
      let run: LiveRun;
      try {
        run = await LiveRun.open(c.runDir, { mode: 'run', onLog: log });
      } catch (error) {
        c.phase = 'failed';
        c.error = `the run could not start: ${(error as Error).message}`;
        this.options.events.log('error', c.error);
        this.markDirty(c);
        return;
      }
      if (!this.holds(c)) {
        await run.close();
        return;
      }
      this.hold(c, run, 'run');
      c.phase = 'running';
      this.markDirty(c);
      try {
        const summary = await run.runSessions();
        c.phase = summary.completed ? 'completed' : 'stopped';
        this.options.events.log(
          'info',
          `Run ${summary.completed ? 'complete' : 'stopped'}: ${summary.sessions.completed}/${summary.sessions.planned} sessions, ${summary.accepted} accepted, serving ${summary.serving.version}.`,
        );
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
      this.markDirty(c);
    })();
    c.sessionsDone.finally(() => {
      if (this.current === c) c.sessionsDone = null;
    }).catch(() => undefined);
  }

  private hold(c: Current, run: LiveRun, mode: 'run' | 'gate'): void {
    if (c.held.kind === 'disk' && c.held.poll) clearInterval(c.held.poll);
    c.events = run.journal.events;
    const unsubscribe = run.journal.onEvent((event) => {
      this.narrate(event);
      this.markDirty(c);
    });
    c.held = { kind: 'live', run, mode, unsubscribe };
  }

  /** Lets go of the LiveRun (closing its processes); the view stays, read from disk. */
  private async release(c: Current): Promise<void> {
    if (c.held.kind === 'disk') return;
    const { run, unsubscribe } = c.held;
    unsubscribe();
    try {
      await run.close();
    } catch (error) {
      this.options.events.log('warn', `closing the run: ${(error as Error).message}`);
    }
    c.held = { kind: 'disk', heldBy: null, poll: null };
    await this.refreshFromDisk(c);
    if (c.phase === 'gate-only' || c.phase === 'running' || c.phase === 'starting' || c.phase === 'pausing' || c.phase === 'paused') c.phase = 'viewing';
  }

  private async diskView(runDir: string, phase: RunPhase): Promise<Current> {
    let events: JournalEvent[];
    try {
      events = (await readJournal(runPaths(runDir).journal, journalEventSchema)).events;
    } catch (error) {
      throw new LabError('not-found', `${runDir}: cannot read its journal: ${(error as Error).message}`);
    }
    if (events[0]?.type !== 'run-started') throw new LabError('not-found', `${runDir} is not a run folder (no journal.jsonl with run-started)`);
    try {
      recipeOf(events);
    } catch (error) {
      throw new LabError('not-found', `${runDir}: its journal holds no valid recipe: ${(error as Error).message}`);
    }
    const holder = await liveHolder(runDir);
    const heldBy = holder !== undefined && holder !== process.pid ? holder : null;
    const c: Current = {
      runDir,
      events,
      details: new SessionDetailCache(runDir),
      held: { kind: 'disk', heldBy, poll: null },
      phase,
      error: null,
      update: 0,
      sent: emptySentState(),
      flushing: null,
      flushTimer: null,
      dirty: false,
      sessionsDone: null,
      injections: new InjectionQueue(
        (kind) => this.buildInjection(c, kind),
        (injection) => {
          if (injection.state === 'failed') this.options.events.log('warn', `Injection ${injection.id} (${injection.kind}) failed: ${injection.error ?? ''}`);
          this.markDirty(c);
        },
      ),
    };
    if (heldBy !== null && c.held.kind === 'disk') {
      // Another process runs it: follow its journal.
      c.held.poll = setInterval(() => {
        void this.refreshFromDisk(c).then(() => this.markDirty(c));
      }, POLL_MS);
    }
    for (const problem of await c.details.load(events)) this.options.events.log('warn', problem);
    return c;
  }

  private async refreshFromDisk(c: Current): Promise<void> {
    if (c.held.kind !== 'disk') return;
    const { events } = await readJournal(runPaths(c.runDir).journal, journalEventSchema).catch(() => ({ events: c.events }));
    if (events.length !== c.events.length) c.events = events;
    if (c.held.heldBy !== null && (await liveHolder(c.runDir)) === undefined) {
      if (c.held.poll) clearInterval(c.held.poll);
      c.held = { kind: 'disk', heldBy: null, poll: null };
    }
  }

  private async replaceCurrent(next: Current): Promise<void> {
    if (this.current) await this.leaveScreen(this.current);
    this.current = next;
    // The renderers replace what they show.
    await this.emit(next, true);
  }

  /** Takes a run off the screen: its waiting injections are dropped and its processes let go. */
  private async leaveScreen(previous: Current): Promise<void> {
    previous.injections.cancelWaiting('another run was opened before this one was built');
    if (previous.flushTimer) clearTimeout(previous.flushTimer);
    await this.release(previous);
    if (previous.held.kind === 'disk' && previous.held.poll) clearInterval(previous.held.poll);
  }

  /** Whether `c` is still held here: on screen, or running in the background. */
  private holds(c: Current): boolean {
    return c === this.current || c === this.background;
  }

  /** Tells the renderers about the running run when what they show of it changed. */
  private announceRunning(): void {
    const view = this.running();
    const text = JSON.stringify(view);
    if (text === this.runningSent) return;
    this.runningSent = text;
    this.options.events.emit('labRuns.runningChanged', view);
  }

  private refuseWhileRunning(what: string): void {
    const refusal = refusalWhileRunning(runningRun(this.current, this.background), what);
    if (refusal !== null) throw new LabError('conflict', refusal);
  }

  private requireCurrent(): Current {
    if (!this.current) throw new LabError('conflict', 'no run is open: start one or open a run folder first');
    return this.current;
  }

  private pointerOf(c: Current): ServingPointerView {
    const p = statusFromEvents(c.events).serving;
    return { version: p.version, sha256: p.sha256 };
  }

  private candidateView(id: string): CandidateView {
    const c = this.requireCurrent();
    const view = buildRunView(this.viewInput(c)).candidates.find((x) => x.id === id);
    if (!view) throw new LabError('not-found', `no candidate ${id} in this run`);
    return view;
  }

  private viewInput(c: Current) {
    return {
      runDir: c.runDir,
      events: c.events,
      details: c.details.all,
      liveness: {
        phase: c.phase,
        error: c.error,
        heldBy: c.held.kind === 'disk' ? c.held.heldBy : null,
        running: this.runningSession(c),
        injections: c.injections.list(),
        update: c.update,
      },
    };
  }

  private view(c: Current): RunView {
    return buildRunView(this.viewInput(c));
  }

  private runningSession(c: Current): number | null {
    if (c.phase !== 'running' && c.phase !== 'pausing' && c.phase !== 'stopping') return null;
    const done = new Set(c.events.flatMap((e) => (e.type === 'session-completed' ? [e.session] : [])));
    const planned = recipeOf(c.events).tasks.sessions;
    for (let s = 0; s < planned; s++) if (!done.has(s)) return s;
    return null;
  }

  /** Gathers changes for `batchMs`, then sends one update. */
  private markDirty(c: Current): void {
    c.dirty = true;
    if (c.flushTimer || c.flushing) return;
    c.flushTimer = setTimeout(() => {
      c.flushTimer = null;
      void this.flushNow(c);
    }, this.batchMs);
  }

  private async flushNow(c: Current): Promise<void> {
    if (c.flushTimer) {
      clearTimeout(c.flushTimer);
      c.flushTimer = null;
    }
    while (c.flushing) await c.flushing;
    if (!c.dirty) return;
    c.flushing = (async () => {
      c.dirty = false;
      try {
        await this.emit(c, false);
      } catch (error) {
        this.options.events.log('warn', `run view update failed: ${(error as Error).message}`);
      }
    })();
    await c.flushing;
    c.flushing = null;
    if (c.dirty) this.markDirty(c);
  }

  private async emit(c: Current, reset: boolean): Promise<void> {
    // The running run is announced whichever run is on screen; only the one on screen streams its view.
    this.announceRunning();
    if (c !== this.current) return;
    for (const problem of await c.details.load(c.events)) this.options.events.log('warn', problem);
    const next = buildRunView({ ...this.viewInput(c), liveness: { ...this.viewInput(c).liveness, update: c.update + 1 } });
    const patch: RunPatch | null = diffRunView(c.sent, next, reset);
    if (!patch) return;
    c.update += 1;
    this.options.events.emit('labRuns.changed', patch);
  }

  /** One log line per decision a person should notice. */
  private narrate(e: JournalEvent): void {
    const log = (line: string) => this.options.events.log('info', line);
    switch (e.type) {
      case 'trainer-step':
        log(`Trainer step ${e.step}: candidate ${e.candidate.version} (loss ${e.stats['loss']?.toFixed(4) ?? '?'}).`);
        break;
      case 'candidate-awaiting-confirm':
        log(`Gate: ${e.id} passed every probe round and awaits your confirmation.`);
        break;
      case 'candidate-promoted':
        log(`Gate: ${e.id} promoted; serving ${e.previous.version} → ${e.pointer.version}.`);
        break;
      case 'candidate-rejected':
        log(`Gate: ${e.id} rejected (${e.reason.code}): ${e.reason.detail}. Serving stays ${e.pointer.version}.`);
        break;
      default:
        break;
    }
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.lifecycle.then(work);
    this.lifecycle = run.catch(() => undefined);
    return run;
  }
}

/** A run folder's status in the run list. */
export function folderStatus(held: boolean, completed: boolean, failure: string | null): RunFolderStatus {
  if (completed) return 'complete';
  if (held) return 'running';
  return failure === null ? 'stopped' : 'failed';
}

function idOf(result: unknown): string {
  const id = (result as { id?: unknown } | null)?.id;
  if (typeof id !== 'string') throw new Error('the run answered without a candidate id');
  return id;
}

/** The lab's failures, as the LabApi's error codes. */
function asLabError(error: unknown): LabError {
  if (error instanceof LabError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof RunNotRunnableError) return new LabError('unavailable', message, { reasons: [...error.reasons] });
  if (error instanceof RecipeError) return new LabError('unavailable', message, { problems: [...error.problems] });
  if (error instanceof GateRequestError || error instanceof IllegalTransitionError || error instanceof RunBusyError) {
    return new LabError('conflict', message);
  }
  return new LabError('internal', message);
}

