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
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { setPriority } from 'node:os';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
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
  #child: ChildProcess | undefined;
  #ready: Promise<void> | undefined;
  #failure: string | undefined;
  readonly #restartTimes: number[] = [];
  readonly #reporter: WorkerReporter;
  /** Set while a start is under way: why the process ended, if it did. */
  #exitedEarly: string | undefined;

  /**
   * The server runs in its own process group (so stopping it stops its
   * helpers), which also means it would outlive the lab: when the lab process
   * exits without shutting it down (process.exit, an uncaught error), kill it.
   */
  readonly #killOnExit = (): void => {
    const pid = this.#child?.pid;
    if (pid === undefined || this.#child?.exitCode !== null || this.#child?.signalCode !== null) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };

  constructor(private readonly options: ServerProcessOptions) {
    this.#reporter = (options.registry ?? workerRegistry).register(options.name, options.describe);
    process.on('exit', this.#killOnExit);
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
      process.off('exit', this.#killOnExit);
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

  #signal(child: ChildProcess, signal: 'SIGTERM' | 'SIGKILL'): void {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    try {
      // Its own process group (detached): the engine's helper processes are signalled too.
      process.kill(-child.pid, signal);
    } catch {
      child.kill(signal);
    }
  }

  async #stopChild(graceMs: number): Promise<void> {
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    this.#signal(child, 'SIGTERM');
    if ((await Promise.race([gone.then(() => 'gone' as const), sleep(graceMs).then(() => 'timeout' as const)])) === 'gone') return;
    this.#signal(child, 'SIGKILL');
    await gone;
  }

  #forward(stream: Readable | null, kind: 'stdout' | 'stderr'): void {
    if (!stream) return;
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      this.#reporter.log(line, kind);
      this.options.onLog?.(line, kind);
    });
  }

  async #launch(state: 'starting' | 'restarting'): Promise<void> {
    this.#setState(state);
    const { command, env, cwd, nice, startTimeoutMs = 600_000 } = this.options;
    const args = [...this.options.args()];
    this.#exitedEarly = undefined;
    let child: ChildProcess;
    try {
      child = spawn(command, args, {
        cwd,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
        shell: false,
        detached: true,
        windowsHide: true,
      });
    } catch (error) {
      return this.#fail(`cannot start ${command}: ${(error as Error).message}`);
    }
    this.#child = child;
    this.#reporter.launched({ kind: 'process', command, args, env: env ?? {} }, child.pid);
    if (child.pid !== undefined && nice) setPriority(child.pid, nice);
    this.#forward(child.stdout, 'stdout');
    this.#forward(child.stderr, 'stderr');
    const exited = new Promise<string>((resolve) => {
      child.once('error', (error) => resolve(`cannot start ${command}: ${error.message}`));
      child.once('exit', (code, signal) => resolve(`${this.options.name} exited (${signal ?? `code ${code}`})`));
    });
    void exited.then((reason) => {
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
        this.#signal(child, 'SIGKILL');
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

  #onExit(child: ChildProcess, reason: string): void {
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
