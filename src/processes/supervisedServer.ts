/**
 * The supervisor of one HTTP server process (a vLLM or SGLang OpenAI server):
 * the counterpart of SupervisedWorker for programs that speak HTTP instead of
 * the lab's RPC. It starts the process with an argument array (never a
 * shell), on loopback, waits for its health URL to answer 200, runs the
 * owner's setup (reload the adapters it served), restarts it with backoff
 * when it exits unexpectedly (a bound on restarts per window, then `failed`),
 * and stops it — the whole process group, so an engine's helper processes go
 * with it — when the run ends. It reports into the same worker registry, so
 * the workers panel lists it like any other worker.
 *
 * Fail closed: requests in flight when the server dies fail (the client turns
 * the broken connection into an EngineError); requests made while it
 * restarts wait for `ready()`.
 *
 * Where the process runs is the launcher's business (serverProcess.ts): this
 * host by default, a Ray job under `runner: ray`; a lost connection to a
 * remote one is an exit like any other.
 */
import { createServer } from 'node:net';
import { launchLocalServer, type ServerLauncher, type ServerProcess } from './serverProcess';
import type { WorkerState } from './supervisedWorker';
import { workerRegistry, type WorkerDescriptor, type WorkerRegistry, type WorkerReporter } from './workerRegistry';
import { WorkerCallError } from './workerMessages';

export interface ServerProcessOptions {
  /** The supervisor's name, in logs and errors (e.g. `serving-engine`). */
  readonly name: string;
  /** The program (an absolute path: the managed environment's python). */
  readonly command: string;
  /** Called at every (re)start: the argument array. */
  readonly args: () => readonly string[];
  /** Added to the lab's environment (CUDA_VISIBLE_DEVICES, the engine's settings). */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** POSIX nice value of the process (0 = normal). */
  readonly nice?: number;
  /** How each process starts (default: a child of this host, launchLocalServer). */
  readonly launch?: ServerLauncher;
  /** GET this until it answers 200: the server is up. */
  readonly healthUrl: string;
  /** How long one start (process, model load, health, setup) may take. */
  readonly startTimeoutMs?: number;
  /** After each start, before anything else is sent: reload what was served. */
  readonly setup?: () => Promise<void>;
  readonly maxRestarts?: number;
  readonly restartWindowMs?: number;
  /** The first restart waits this long; each further one within the window twice as long. */
  readonly restartDelayMs?: number;
  readonly describe?: WorkerDescriptor;
  readonly registry?: WorkerRegistry;
  readonly onLog?: (line: string, stream: 'stdout' | 'stderr') => void;
  readonly onStateChange?: (state: WorkerState, detail?: string) => void;
}

/** A free TCP port on 127.0.0.1 (the server binds it a moment later; a clash fails its start, which is retried). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => (port > 0 ? resolve(port) : reject(new Error('no free loopback port'))));
    });
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export class SupervisedServer {
  #state: WorkerState = 'idle';
  #child: ServerProcess | undefined;
  #ready: Promise<void> | undefined;
  #failure: string | undefined;
  readonly #restartTimes: number[] = [];
  readonly #reporter: WorkerReporter;
  /** Set while a start is under way: why the process ended, if it did. */
  #exitedEarly: string | undefined;

  constructor(private readonly options: ServerProcessOptions) {
    this.#reporter = (options.registry ?? workerRegistry).register(options.name, options.describe);
  }

  get state(): WorkerState {
    return this.#state;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Starts the server (idempotent); resolves once it is healthy and set up. */
  start(): Promise<void> {
    return this.ready();
  }

  /**
   * Resolves when the server can take requests: starts it if needed, waits
   * through a restart (a start whose process died is followed to the restart
   * the supervisor began); rejects once it failed or stopped.
   */
  async ready(): Promise<void> {
    for (;;) {
      if (this.#state === 'failed') throw new WorkerCallError('not_running', `${this.options.name} failed: ${this.#failure ?? 'unknown'}`);
      if (this.#state === 'stopped') throw new WorkerCallError('not_running', `${this.options.name} was shut down`);
      if (!this.#ready) {
        this.#ready = this.#launch('starting');
        this.#ready.catch(() => undefined);
      }
      const attempt = this.#ready;
      try {
        await attempt;
        return;
      } catch (error) {
        if (this.#ready !== attempt && this.#state === 'restarting') continue;
        throw error;
      }
    }
  }

  /** SIGTERM to the process group, SIGKILL after `graceMs`; resolves when the process is gone. */
  async shutdown(graceMs = 10_000): Promise<void> {
    this.#setState('stopped');
    try {
      await this.#stopChild(graceMs);
    } finally {
      this.#reporter.remove();
    }
  }

  #setState(state: WorkerState, detail?: string): void {
    if (this.#state === 'stopped' && state !== 'stopped') return;
    // A restart announces itself once (the exit says why; the new launch says nothing new).
    if (state === this.#state && detail === undefined) return;
    this.#state = state;
    this.#reporter.state(state, detail);
    this.options.onStateChange?.(state, detail);
  }

  async #stopChild(graceMs: number): Promise<void> {
    const child = this.#child;
    if (!child || !child.running) return;
    const gone = child.exited.then(() => undefined);
    child.signal('SIGTERM');
    if ((await Promise.race([gone.then(() => 'gone' as const), sleep(graceMs).then(() => 'timeout' as const)])) === 'gone') return;
    child.signal('SIGKILL');
    await gone;
  }

  async #launch(state: 'starting' | 'restarting'): Promise<void> {
    this.#setState(state);
    const { command, env, cwd, nice, startTimeoutMs = 600_000 } = this.options;
    const args = [...this.options.args()];
    this.#exitedEarly = undefined;
    let child: ServerProcess;
    try {
      child = (this.options.launch ?? launchLocalServer)({
        name: this.options.name,
        command,
        args,
        env: env ?? {},
        ...(cwd !== undefined ? { cwd } : {}),
        nice: nice ?? 0,
        onLine: (line, kind) => {
          this.#reporter.log(line, kind);
          this.options.onLog?.(line, kind);
        },
      });
    } catch (error) {
      return this.#fail(`cannot start ${command}: ${(error as Error).message}`);
    }
    this.#child = child;
    this.#reporter.launched({ kind: 'process', command, args, env: env ?? {} }, child.pid, child.label);
    void child.exited.then((reason) => {
      this.#exitedEarly = reason;
      this.#onExit(child, reason);
    });

    const deadline = Date.now() + startTimeoutMs;
    try {
      while (!(await this.#healthy())) {
        if (this.#exitedEarly) throw new Error(this.#exitedEarly);
        if (this.#state === 'stopped') throw new WorkerCallError('not_running', `${this.options.name} was shut down`);
        if (Date.now() > deadline) throw new Error(`${this.options.name} did not answer ${this.options.healthUrl} within ${startTimeoutMs} ms`);
        await sleep(500);
      }
      await this.options.setup?.();
    } catch (error) {
      // A start that fails on a live process leaves it useless: stop it; the exit decides whether to retry.
      if (!this.#exitedEarly) {
        this.#failure = (error as Error).message;
        child.signal('SIGKILL');
      }
      throw error instanceof WorkerCallError ? error : new WorkerCallError('start_failed', (error as Error).message);
    }
    this.#setState('running');
  }

  async #healthy(): Promise<boolean> {
    try {
      const response = await fetch(this.options.healthUrl, { signal: AbortSignal.timeout(5_000) });
      await response.body?.cancel();
      return response.ok;
    } catch {
      return false;
    }
  }

  #fail(reason: string): Promise<never> {
    this.#failure = reason;
    this.#setState('failed', reason);
    return Promise.reject(new WorkerCallError('start_failed', reason));
  }

  #onExit(child: ServerProcess, reason: string): void {
    if (child !== this.#child || this.#state === 'stopped' || this.#state === 'failed') return;
    const { maxRestarts = 3, restartWindowMs = 600_000, restartDelayMs = 1_000 } = this.options;
    const now = Date.now();
    while (this.#restartTimes.length > 0 && now - (this.#restartTimes[0] as number) > restartWindowMs) this.#restartTimes.shift();
    const restarting = this.#restartTimes.length < maxRestarts;
    this.#reporter.exited(reason, restarting);
    if (!restarting) {
      this.#failure = `${this.#failure ?? reason} (after ${this.#restartTimes.length} restarts within ${restartWindowMs} ms)`;
      this.#ready = Promise.reject(new WorkerCallError('not_running', this.#failure));
      this.#ready.catch(() => undefined);
      this.#setState('failed', this.#failure);
      return;
    }
    this.#restartTimes.push(now);
    const delay = restartDelayMs * 2 ** (this.#restartTimes.length - 1);
    this.#setState('restarting', reason);
    // Requests arriving meanwhile wait on this promise, which settles once the new process is set up.
    this.#ready = (async () => {
      await sleep(delay);
      await this.#reporter.beforeRestart();
      if (this.#state === 'stopped') throw new WorkerCallError('not_running', `${this.options.name} was shut down`);
      await this.#launch('restarting');
    })();
    this.#ready.catch(() => undefined);
  }
}
