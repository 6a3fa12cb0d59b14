// A run in progress: the recipe's sessions, in order, through the gateway to
// the serving engine; judged turns to the trainer; its candidates through the
// release gate; promotions swapped into serving between requests. Sessions
// keep running on the serving version while a candidate is probed. The
// journal is the source of truth, so `open` on an existing run folder resumes
// it exactly where it stopped.
//
// This file holds the run's life — open, the session loop, stop, close — and
// what a person can ask of it; its parts live beside it: the folder's
// creation (createRun.ts), the engines, gateway and trainer feed
// (runParts.ts), a session's files (sessionFiles.ts), the pause
// (pauseLatch.ts) and injection (injectCandidate.ts).
import { replyCriterion } from '../core/preference/replyCriterion';
import path from 'node:path';
import type { CandidateRecord } from '../core/gate/gateState';
import { ReleaseGate } from '../core/gate/releaseGate';
import type { VerifySettings } from '../core/gate/verifyCandidate';
import { RunJournal } from '../core/journal/runJournal';
import { readServingPointer, type ServingPointer } from '../core/journal/servingPointer';
import type { LoadedRecipe } from '../core/recipe/loadRecipe';
import { recipeSchema, type Recipe } from '../core/recipe/recipeSchema';
import { policyShape, readPolicyConfig, type PolicyShape } from '../core/weights/policyConfig';
import { DEFAULT_MODEL_ID } from '../surfaces/gateway/gatewayServer';
import type { RunBackends } from './composeRun';
import { injectCandidate, type InjectRequest } from './injectCandidate';
import { PauseLatch } from './pauseLatch';
import { recipeBackends } from './recipeBackends';
import { lockRun } from './runFolder';
import { writeRunReport, type RunSummaryFile } from './runReport';
import { closeRunParts, startRunParts, type RunParts, type ServingParts } from './runParts';
import { runSession, type SessionContext } from './runSession';
import { statusFromEvents, type RunStatus } from './runStatus';
import { loadRunTasks, type RunTasks } from './runTasks';
import { completedSessionEvents, recordSession } from './sessionFiles';
import type { TurnRecord } from './turnLog';
import { verifySettings } from './verifySettings';
import { excludeSession } from './live/excludeSession';

export type LiveRunOptions = {
  /**
   * 'run': sessions, serving engine, gateway, trainer, probe engine.
   * 'gate': only the gate and its probe engine — an offline confirm, reject,
   * rollback or inject on a run no process is running (nothing serves, the
   * pointer is still the one truth).
   */
  mode?: 'run' | 'gate';
  onLog?: (line: string) => void;
  /** Called after each session is journaled, before the next starts (the bench injects here). */
  afterSession?: (session: number, run: LiveRun) => Promise<void>;
  /** Told of a failure that stops the run (the trainer feed's, live mode's); the session loop also throws it. */
  onFatal?: (error: Error) => void;
  /** The gate's barrier before each probe round samples (ReleaseGateOptions.beforeProbeRound; tests). */
  beforeProbeRound?: (id: string, round: number) => Promise<void>;
};

export class LiveRun {
  private parts: RunParts | undefined;
  private stopping = false;
  private closing = false;
  private fatal: Error | undefined;
  /** A pause asked for: the loop waits before the next session until `continueSessions`. */
  private readonly pause = new PauseLatch();
  private readonly startedAt = Date.now();

  private constructor(
    readonly runDir: string,
    readonly runId: string,
    readonly recipe: Recipe,
    readonly loaded: Pick<LoadedRecipe, 'dir' | 'file'>,
    readonly journal: RunJournal,
    readonly gate: ReleaseGate,
    readonly tasks: RunTasks,
    readonly backends: RunBackends,
    readonly shape: PolicyShape,
    readonly verify: VerifySettings,
    private readonly releaseLock: () => Promise<void>,
    private readonly options: LiveRunOptions,
  ) {}

  /** Opens a run folder (new or interrupted), starts its engines, trainer and gateway. */
  static async open(runDir: string, options: LiveRunOptions = {}): Promise<LiveRun> {
    const release = await lockRun(runDir);
    let journal: RunJournal | undefined;
    try {
      journal = await RunJournal.open(runDir);
      const started = journal.events[0];
      if (!started || started.type !== 'run-started') throw new Error(`${runDir} has no run journal (journal.jsonl without run-started)`);
      if (journal.droppedTornLine) options.onLog?.('the journal ended in a torn line (a crash mid-write); it was dropped');
      const recipe = recipeSchema.parse(started.recipe);
      const loaded = { file: started.recipeFile, dir: path.dirname(started.recipeFile) };
      const backends = recipeBackends(recipe, loaded, runDir);
      const shape = policyShape(await readPolicyConfig(path.join(backends.policy.modelDir, 'config.json')));
      const verify = verifySettings(recipe, shape);
      const tasks = await loadRunTasks({ ...loaded, recipe });
      if (journal.events.length > 1) await journal.append({ type: 'run-resumed', pid: process.pid });
      const gate = new ReleaseGate({
        runDir,
        journal,
        config: recipe.gate,
        verify,
        criterion: replyCriterion(recipe.preference),
        runSeed: recipe.seed,
        onError: (e) => options.onLog?.(`gate: ${e.message}`),
        ...(options.beforeProbeRound ? { beforeProbeRound: options.beforeProbeRound } : {}),
      });
      await gate.reconcilePointerFile(await readServingPointer(runDir).catch(() => undefined));
      const run = new LiveRun(runDir, started.runId, recipe, loaded, journal, gate, tasks, backends, shape, verify, release, options);
      run.parts = await startRunParts({
        runDir,
        recipe,
        journal,
        gate,
        tasks,
        backends,
        baseSha256: run.baseSha256,
        gateOnly: (options.mode ?? 'run') === 'gate',
        onLog: options.onLog,
        onFatal: (e) => run.fail(e),
      });
      return run;
    } catch (error) {
      await journal?.close().catch(() => undefined);
      await release();
      throw error;
    }
  }

  get modelDir(): string {
    return this.backends.policy.modelDir;
  }

  /** The base the run started on (run-started). */
  private get baseSha256(): string {
    const started = this.journal.events[0];
    if (started?.type !== 'run-started') throw new Error('no run-started event');
    return started.baseVersion.sha256;
  }

  /** A live-mode run (run-started says so): outside clients' conversations, no task sessions. */
  get isLiveMode(): boolean {
    const started = this.journal.events[0];
    return started?.type === 'run-started' && started.live === true;
  }

  get gatewayUrl(): string | undefined {
    return this.parts?.live?.gateway.url;
  }

  completedSessions(): Set<number> {
    return new Set(completedSessionEvents(this.journal.events).map((e) => e.session));
  }

  private fail(error: Error): void {
    if (this.fatal === undefined) this.options.onFatal?.(error);
    this.fatal ??= error;
    this.stopping = true;
    this.continueSessions();
  }

  /**
   * Runs the remaining sessions; resolves with the summary once the run is
   * complete (or stopped). A failure is journaled (`run-failed`) before it is
   * thrown, so the run folder says why it stopped; shutting down is not one.
   */
  async runSessions(): Promise<RunSummaryFile> {
    // A live-mode run's sessions are outside conversations: the recipe's tasks would be numbered over them.
    if (this.isLiveMode) throw new Error(`${this.runDir} is a live-mode run: continue it with 'gatelab live --run ${this.runDir}'`);
    try {
      return await this.runRemainingSessions();
    } catch (error) {
      if (!this.closing) await this.journal.append({ type: 'run-failed', error: (error as Error).message }).catch(() => undefined);
      throw error;
    } finally {
      this.pause.loopEnded();
    }
  }

  private async runRemainingSessions(): Promise<RunSummaryFile> {
    const parts = this.requireLive();
    const done = this.completedSessions();
    const ctx: SessionContext = {
      recipe: this.recipe,
      gateway: { url: parts.gateway.url, token: parts.token, model: DEFAULT_MODEL_ID },
      turnRecord: (id: string) => parts.gateway.turnLog.all().find((t) => t.id === id),
      judge: this.backends.judge(),
      students: this.backends.students,
      countPromptTokens: (messages) => parts.tokenizer.countPromptTokens(messages),
      maxPositions: parts.tokenizer.maxPositions,
    };
    for (let session = 0; session < this.recipe.tasks.sessions && !this.stopping; session++) {
      if (done.has(session)) continue;
      await this.pause.point(this.journal, () => this.stopping);
      if (this.stopping) break;
      const waitStarted = performance.now();
      await parts.feed.stepDone();
      const waitSeconds = (performance.now() - waitStarted) / 1000;
      const task = this.tasks.sessions[session]!;
      const result = await runSession(ctx, task, session, this.recipe.seed, this.runId);
      await recordSession(this.runDir, this.journal, result, waitSeconds);
      await this.report();
      parts.feed.add(result.samples.map((j) => j.sample));
      await this.options.afterSession?.(session, this);
    }
    if (this.fatal) throw this.fatal;
    if (this.stopping) return this.report();
    // Every session is in: the last full batch trains, its candidate goes through the gate.
    await parts.feed.flush();
    await this.gate.idle();
    if (this.fatal) throw this.fatal;
    if (!this.journal.events.some((e) => e.type === 'run-completed')) {
      await this.journal.append({ type: 'run-completed', wallSeconds: (Date.now() - this.startedAt) / 1000 });
    }
    return this.report();
  }

  report(): Promise<RunSummaryFile> {
    return writeRunReport(this.runDir, this.journal.events, this.recipe.gate.rounds);
  }

  /** The serving parts (gateway, its turn log, tokenizer, trainer feed) while the run serves: live mode feeds on them. */
  servingParts(): ServingParts {
    return this.requireLive();
  }

  /** Stops the run for a failure found outside its session loop (live mode's journal failed). */
  failWith(error: Error): void {
    this.fail(error);
  }

  private requireLive(): ServingParts {
    const live = this.parts?.live;
    if (!live) throw new Error('the run is not serving (opened in gate mode, or closed)');
    return live;
  }

  /** The gateway a person (or the 200-request test) can talk to while the run is live. */
  gatewayEndpoint(): { url: string; token: string; model: string } {
    const live = this.requireLive();
    return { url: live.gateway.url, token: live.token, model: DEFAULT_MODEL_ID };
  }

  /** Every turn the gateway served in this process (tokens, log-probs, OpenClaw headers, version). */
  servedTurns(): readonly TurnRecord[] {
    return this.requireLive().gateway.turnLog.all();
  }

  // ── what a person can do (the CLI, the control endpoint and the desktop call these) ──

  status(): RunStatus {
    return statusFromEvents(this.journal.events);
  }

  confirm(id: string): Promise<CandidateRecord> {
    return this.gate.confirm(id, 'person');
  }

  reject(id: string, reason: string): Promise<CandidateRecord> {
    return this.gate.reject(id, reason);
  }

  /** Excludes a journaled session from training (its turns not yet trained are dropped by the feed). */
  exclude(session: number, reason: string): Promise<{ session: number; trainedIn: string[] }> {
    return excludeSession(this.journal, session, reason);
  }

  rollback(version: string): Promise<ServingPointer> {
    return this.gate.rollback(version);
  }

  /** Builds a bad candidate (or reads an adapter file) and stages it through the gate. */
  async inject(request: InjectRequest): Promise<CandidateRecord> {
    const parts = this.parts;
    if (!parts) throw new Error('the run is closed');
    return injectCandidate(request, {
      runDir: this.runDir,
      recipe: this.recipe,
      gate: this.gate,
      tasks: this.tasks,
      backends: this.backends,
      verify: this.verify,
      baseSha256: this.baseSha256,
      parts,
      onLog: this.options.onLog,
    });
  }

  /**
   * Pauses after the session in progress: no new session starts, while the
   * gateway keeps serving, the trainer finishes its step and the gate goes on
   * deciding (a person can still confirm, reject, inject and roll back).
   * Resolves once no session runs.
   */
  requestPause(): Promise<void> {
    return this.pause.request();
  }

  /** Lets a paused run start its next session. */
  continueSessions(): void {
    this.pause.release();
  }

  /** Stops after the session in progress (or at once when paused); the run can be resumed later. */
  requestStop(): void {
    this.stopping = true;
    this.continueSessions();
  }

  /** Shuts everything down (the journal keeps all that happened). */
  async close(): Promise<void> {
    this.closing = true;
    this.stopping = true;
    this.continueSessions();
    const parts = this.parts;
    this.parts = undefined;
    if (parts) await closeRunParts(parts, this.gate, this.options.onLog);
    await this.report().catch(() => undefined);
    await this.journal.close();
    await this.releaseLock();
  }
}
