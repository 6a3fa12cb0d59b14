// A run in progress (DESIGN §1–§4): the recipe's sessions, in order, through
// the gateway to the serving engine; judged turns to the trainer; its
// candidates through the release gate; promotions swapped into serving
// between requests. Sessions keep running on the serving version while a
// candidate is probed. The journal is the source of truth, so `open` on an
// existing run folder resumes it exactly where it stopped.
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { composeRun, thisHost, type RunBackends } from './composeRun';
import { BackendUnavailableError } from '../backends/backendUnavailable';
import type { TrainerWorker } from '../backends/trainerBackend';
import { trainerInitParams } from '../backends/trainerInitParams';
import { makeBadCandidate } from '../core/gate/badCandidates';
import type { CandidateRecord } from '../core/gate/gateState';
import { EngineProbeSampler } from '../core/gate/probeRunner';
import { ReleaseGate } from '../core/gate/releaseGate';
import { stageableAdapterFile } from '../core/gate/stageAdapterFile';
import { sha256Hex, type VerifySettings } from '../core/gate/verifyCandidate';
import { writeFileAtomic } from '../core/journal/atomicFile';
import type { BadCandidateKind } from '../core/gate/candidateVocabulary';
import type { JournalEvent } from '../core/journal/journalEvents';
import { RunJournal } from '../core/journal/runJournal';
import { readServingPointer, writeServingPointer, type ServingPointer } from '../core/journal/servingPointer';
import { loadRecipe, resolveRecipePath, type LoadedRecipe } from '../core/recipe/loadRecipe';
import { trainSampleSchema, type TrainSample } from '../core/protocols/trainSample';
import { recipeSchema, type Arm, type Recipe } from '../core/recipe/recipeSchema';
import { DEFAULT_MODEL_ID, startGateway, type Gateway } from '../surfaces/gateway/gatewayServer';
import type { GatewayTokenizer } from '../core/protocols/gatewayTokenizer';
import type { StartedEngine } from '../processes/rpcEngineClient';
import { ServingState } from './servingState';
import type { TurnRecord } from './turnLog';
import { adapterSpec, loraModuleFromPeft } from '../core/weights/adapterSpec';
import { policyShape, readPolicyConfig, type PolicyShape } from '../core/weights/policyConfig';
import { lockRun, runPaths } from './runFolder';
import { writeRunReport, type RunSummaryFile } from './runReport';
import { runSession, type SessionContext, type SessionResult } from './runSession';
import { statusFromEvents, type RunStatus } from './runStatus';
import { loadRunTasks, type RunTasks } from './runTasks';
import { TrainerFeed } from './trainerFeed';

export type RunOverrides = { seed?: number; confirm?: 'auto' | 'manual'; sessions?: number; arm?: Arm };

export class RunNotRunnableError extends Error {
  constructor(
    readonly recipeFile: string,
    readonly reasons: readonly string[],
  ) {
    super(`${recipeFile} cannot run on this machine:\n${reasons.map((r) => `  - ${r}`).join('\n')}`);
    this.name = 'RunNotRunnableError';
  }
}

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
  /** The gate's barrier before each probe round samples (ReleaseGateOptions.beforeProbeRound; tests). */
  beforeProbeRound?: (id: string, round: number) => Promise<void>;
};

/** The recipe with the command line's overrides applied; what the journal records. */
export function applyOverrides(recipe: Recipe, overrides: RunOverrides): Recipe {
  const out = structuredClone(recipe);
  if (overrides.seed !== undefined) out.seed = overrides.seed;
  if (overrides.confirm !== undefined) out.gate.confirm = overrides.confirm;
  if (overrides.arm !== undefined) out.arm = overrides.arm;
  if (overrides.sessions !== undefined) {
    if (!Number.isInteger(overrides.sessions) || overrides.sessions < 1 || overrides.sessions > recipe.tasks.sessions) {
      throw new Error(`--sessions must be 1–${recipe.tasks.sessions}`);
    }
    out.tasks.sessions = overrides.sessions;
  }
  return recipeSchema.parse(out);
}

/** Creates a new run folder and its first journal events; returns its path. */
export async function createRun(recipeFile: string, outDir: string, overrides: RunOverrides): Promise<string> {
  const loaded = await loadRecipe(recipeFile);
  const recipe = applyOverrides(loaded.recipe, overrides);
  const backends = backendsOf(recipe, loaded);
  await loadRunTasks({ ...loaded, recipe }); // refuse missing or overlapping task files before anything is written
  const runDir = path.resolve(outDir);
  await mkdir(runDir, { recursive: true });
  const release = await lockRun(runDir);
  try {
    const journal = await RunJournal.open(runDir);
    if (journal.events.length > 0) throw new Error(`${runDir} already holds a run; use 'gatelab resume --run ${runDir}'`);
    const baseSha256 = await backends.policy.baseSha256();
    await copyFile(loaded.file, runPaths(runDir).recipe);
    const base: ServingPointer = { version: 'base', sha256: baseSha256 };
    await journal.append({ type: 'run-started', runId: path.basename(runDir), recipeFile: loaded.file, recipe, baseVersion: base });
    await writeServingPointer(runDir, base);
    await journal.close();
  } finally {
    await release();
  }
  return runDir;
}

/** What the gate's verify step checks a candidate against: the recipe's LoRA on this base's shapes. */
function verifySettings(recipe: Recipe, shape: PolicyShape): VerifySettings {
  const l = recipe.trainer.lora;
  return {
    spec: adapterSpec(shape, { rank: l.rank, alpha: l.alpha, targets: l.target_modules.map(loraModuleFromPeft), dtype: l.dtype }),
    lora: { rank: l.rank, alpha: l.alpha, targets: [...l.target_modules] },
    maxUpdateNorm: recipe.gate.max_update_norm,
  };
}

/** The run's parts as the recipe chooses them (the composition root); a recipe that cannot run here is refused with every reason. */
function backendsOf(recipe: Recipe, loaded: Pick<LoadedRecipe, 'dir' | 'file'>, runDir?: string): RunBackends {
  try {
    // Each worker's whole output goes to the run folder's workers/<role>.log.
    const logs = runDir === undefined ? {} : { workerLogDir: path.join(runDir, 'workers') };
    return composeRun(recipe, { resolvePath: (p) => resolveRecipePath(loaded, p), host: thisHost(), ...logs });
  } catch (error) {
    if (error instanceof BackendUnavailableError) throw new RunNotRunnableError(loaded.file, error.reasons);
    throw error;
  }
}

/** A session's samples file: each judged turn, the version that produced its reply, and the train sample. */
const judgedSamplesSchema = z.array(z.object({ version: z.string(), turn: z.int(), sample: trainSampleSchema }));

type ServingParts = { token: string; serving: StartedEngine; servingState: ServingState; gateway: Gateway; tokenizer: GatewayTokenizer; feed: TrainerFeed };
type Parts = { probe: StartedEngine; live: ServingParts | undefined };

export class LiveRun {
  private parts: Parts | undefined;
  private stopping = false;
  private closing = false;
  private fatal: Error | undefined;
  /** A pause asked for: the loop waits before the next session until `continueSessions`. */
  private pause: { reached: Promise<void>; markReached: () => void; release: (() => void) | undefined } | undefined;
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
      const backends = backendsOf(recipe, loaded, runDir);
      const shape = policyShape(await readPolicyConfig(path.join(backends.policy.modelDir, 'config.json')));
      const verify = verifySettings(recipe, shape);
      const tasks = await loadRunTasks({ ...loaded, recipe });
      if (journal.events.length > 1) await journal.append({ type: 'run-resumed', pid: process.pid });
      const gate = new ReleaseGate({
        runDir,
        journal,
        config: recipe.gate,
        verify,
        runSeed: recipe.seed,
        onError: (e) => options.onLog?.(`gate: ${e.message}`),
        ...(options.beforeProbeRound ? { beforeProbeRound: options.beforeProbeRound } : {}),
      });
      await gate.reconcilePointerFile(await readServingPointer(runDir).catch(() => undefined));
      const run = new LiveRun(runDir, started.runId, recipe, loaded, journal, gate, tasks, backends, shape, verify, release, options);
      await run.startParts();
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

  get gatewayUrl(): string | undefined {
    return this.parts?.live?.gateway.url;
  }

  private async startParts(): Promise<void> {
    const log = this.options.onLog;
    const { policy, placement } = this.backends;
    const engineLog = (role: string) => (log ? { onLog: (l: string) => log(`${role} engine: ${l}`) } : {});
    const gateOnly = (this.options.mode ?? 'run') === 'gate';
    // The engines start side by side (each loads and hash-checks the model).
    const started = await Promise.allSettled([
      policy.startEngine({ role: 'probe', placement: placement('probe'), ...engineLog('probe') }),
      gateOnly ? Promise.resolve(undefined) : policy.startEngine({ role: 'serving', placement: placement('serving'), ...engineLog('serving') }),
    ]);
    const probe = started[0].status === 'fulfilled' ? started[0].value : undefined;
    let serving = started[1].status === 'fulfilled' ? started[1].value : undefined;
    let gateway: Gateway | undefined;
    try {
      for (const s of started) if (s.status === 'rejected') throw s.reason;
      for (const engine of [probe, serving]) {
        if (engine && engine.info.baseSha256 !== this.baseSha256) {
          throw new Error(`the policy at ${policy.modelDir} (base ${engine.info.baseSha256.slice(0, 12)}…) is not the one this run started on`);
        }
      }
      const sampler = new EngineProbeSampler(probe!.client, this.tasks.probe, this.recipe.gate.probe.sampling);
      if (gateOnly || !serving) {
        this.gate.attach({ probe: sampler });
        this.parts = { probe: probe!, live: undefined };
        this.gate.kick();
        return;
      }
      // Serving loads exactly the pointer's version, hash-checked by the engine.
      const pointer = this.gate.pointer;
      const loaded = await serving.client.setAdapter(this.gate.adapterRef(pointer));
      const servingState = new ServingState(serving.client, { version: loaded, sha256: pointer.sha256 }, serving.info.baseSha256);
      const token = randomBytes(24).toString('base64url');
      const tokenizer = policy.gatewayTokenizer(serving);
      gateway = await startGateway({
        engine: serving.client,
        serving: servingState,
        tokenizer,
        token,
        turnLogTopK: this.recipe.policy.logprobs_top_k,
      });
      this.gate.attach({ probe: sampler, serving: servingState });
      const feed = new TrainerFeed({
        runDir: this.runDir,
        journal: this.journal,
        gate: this.gate,
        recipe: this.recipe,
        modelDir: policy.modelDir,
        baseSha256: this.baseSha256,
        trainer: this.backends.trainer,
        placement: placement('trainer'),
        samples: await this.completedSamples(),
        ...(log ? { onLog: log } : {}),
        onFatal: (e) => this.fail(e),
      });
      this.parts = { probe: probe!, live: { token, serving, servingState, gateway, tokenizer, feed } };
      // The trainer loads while the first sessions run; it is needed only once a batch is full.
      feed.start().catch((e: unknown) => this.fail(e as Error));
      this.gate.kick();
    } catch (error) {
      this.parts = undefined;
      await gateway?.close().catch(() => undefined);
      await serving?.client.close().catch(() => undefined);
      await probe?.client.close().catch(() => undefined);
      serving = undefined;
      throw error;
    }
  }

  /** The judged turns of every completed session, in order, each file checked against its journaled hash. */
  private async completedSamples(): Promise<TrainSample[]> {
    const out: TrainSample[] = [];
    for (const e of this.sessionEvents()) {
      const bytes = await readFile(path.join(this.runDir, e.samples.file));
      if (sha256Hex(bytes) !== e.samples.sha256) throw new Error(`${e.samples.file} does not match its journaled sha256`);
      const judged = judgedSamplesSchema.safeParse(JSON.parse(bytes.toString('utf8')));
      if (!judged.success) {
        const issue = judged.error.issues[0];
        // A run made before the samples carried messages (they held the embedded tokenizer's ids) cannot train again.
        throw new Error(`${e.samples.file} holds no train samples this version reads (${issue?.path.join('.')}: ${issue?.message}); the run's training cannot resume`);
      }
      out.push(...judged.data.map((j) => j.sample));
    }
    return out;
  }

  private sessionEvents(): Extract<JournalEvent, { type: 'session-completed' }>[] {
    return this.journal.events
      .filter((e): e is Extract<JournalEvent, { type: 'session-completed' }> => e.type === 'session-completed')
      .sort((a, b) => a.session - b.session);
  }

  completedSessions(): Set<number> {
    return new Set(this.sessionEvents().map((e) => e.session));
  }

  private fail(error: Error): void {
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
    try {
      return await this.runRemainingSessions();
    } catch (error) {
      if (!this.closing) await this.journal.append({ type: 'run-failed', error: (error as Error).message }).catch(() => undefined);
      throw error;
    } finally {
      this.pause?.markReached(); // a pause asked for as the run ends has nothing left to wait for
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
      await this.pausePoint();
      if (this.stopping) break;
      const waitStarted = performance.now();
      await parts.feed.stepDone();
      const waitSeconds = (performance.now() - waitStarted) / 1000;
      const task = this.tasks.sessions[session]!;
      const result = await runSession(ctx, task, session, this.recipe.seed, this.runId);
      await this.recordSession(result, waitSeconds);
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

  private async recordSession(result: SessionResult, waitSeconds: number): Promise<void> {
    const paths = runPaths(this.runDir);
    const transcript = paths.transcript(result.session);
    const samplesFile = paths.samples(result.session);
    const samplesText = JSON.stringify(result.samples);
    await writeFileAtomic(path.join(this.runDir, transcript), JSON.stringify(result, (k, v: unknown) => (k === 'samples' ? undefined : v), 1) + '\n');
    await writeFileAtomic(path.join(this.runDir, samplesFile), samplesText);
    await this.journal.append({
      type: 'session-completed',
      session: result.session,
      taskId: result.task.id,
      accepted: result.firstVerdict.accepted,
      turns: result.turns.length,
      versions: result.versions,
      transcript,
      samples: { file: samplesFile, sha256: sha256Hex(Buffer.from(samplesText, 'utf8')), count: result.samples.length },
      curve: { ...result.observation },
      timing: { waitSeconds, ...result.timing },
    });
    await this.report();
  }

  report(): Promise<RunSummaryFile> {
    return writeRunReport(this.runDir, this.journal.events, this.recipe.gate.rounds);
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

  rollback(version: string): Promise<ServingPointer> {
    return this.gate.rollback(version);
  }

  /** Builds a bad candidate (or reads an adapter file) and stages it through the gate. */
  async inject(request: { kind: BadCandidateKind } | { file: string }): Promise<CandidateRecord> {
    const parts = this.parts;
    if (!parts) throw new Error('the run is closed');
    const l = this.recipe.trainer.lora;
    const input =
      'file' in request
        ? await stageableAdapterFile(this.runDir, request.file, this.baseSha256, { rank: l.rank, alpha: l.alpha, targets: [...l.target_modules] }, this.modelDir)
        : await makeBadCandidate(request.kind, {
            runDir: this.runDir,
            recipe: this.recipe,
            modelDir: this.modelDir,
            spec: this.verify.spec,
            tasks: this.tasks.sessions,
            rolloutEngine: parts.probe.client,
            withTrainer: (use) => this.withTrainer(use),
            seed: this.recipe.seed + this.gate.candidates().length,
            baseSha256: this.baseSha256,
          });
    return this.gate.stage(input);
  }

  /**
   * The trained bad kinds are the run's trainer's to make: the live run's
   * trainer process, or — on a run opened for its gate only — one started
   * (with the recipe's backend and placement) for this request and stopped after.
   */
  private async withTrainer<T>(use: (trainer: TrainerWorker) => Promise<T>): Promise<T> {
    const live = this.parts?.live;
    if (live) return use(live.feed.trainerWorker);
    const init = trainerInitParams(this.recipe, {
      modelDir: this.modelDir,
      baseSha256: this.baseSha256,
      storeDir: path.join(this.runDir, 'weights'),
      ...(this.backends.trainer.maxTokensPerCall !== undefined ? { maxTokensPerCall: this.backends.trainer.maxTokensPerCall } : {}),
    });
    const log = this.options.onLog;
    const worker = this.backends.trainer.createWorker({
      placement: this.backends.placement('trainer'),
      setup: async (connection) => {
        await connection.call('init', init, { timeoutMs: 120_000 });
      },
      ...(log ? { onLog: (line: string) => log(`trainer: ${line}`) } : {}),
    });
    try {
      await worker.start();
      return await use(worker);
    } finally {
      await worker.shutdown(5000);
    }
  }


  /**
   * Pauses after the session in progress: no new session starts, while the
   * gateway keeps serving, the trainer finishes its step and the gate goes on
   * deciding (a person can still confirm, reject, inject and roll back).
   * Resolves once no session runs.
   */
  requestPause(): Promise<void> {
    if (!this.pause) {
      let markReached!: () => void;
      const reached = new Promise<void>((resolve) => (markReached = resolve));
      this.pause = { reached, markReached, release: undefined };
    }
    return this.pause.reached;
  }

  /** Lets a paused run start its next session. */
  continueSessions(): void {
    const pause = this.pause;
    this.pause = undefined;
    pause?.markReached();
    pause?.release?.();
  }

  /** Where the session loop waits while paused (between two sessions). */
  private async pausePoint(): Promise<void> {
    const pause = this.pause;
    if (!pause || this.stopping) return;
    const released = new Promise<void>((resolve) => (pause.release = resolve));
    await this.journal.append({ type: 'run-paused' });
    pause.markReached();
    await released;
    // A stop while paused ends the stretch here; a resume later journals its own start.
    if (!this.stopping) await this.journal.append({ type: 'run-continued' });
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
    if (parts) {
      await parts.live?.feed.close().catch((e: unknown) => this.options.onLog?.(`trainer: ${(e as Error).message}`));
      await this.gate.close();
      await parts.live?.gateway.close();
      await parts.probe.client.close();
      await parts.live?.serving.client.close();
    }
    await this.report().catch(() => undefined);
    await this.journal.close();
    await this.releaseLock();
  }
}
