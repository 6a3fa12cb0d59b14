/**
 * The supervisor of one worker role (engine, trainer, …): starts its
 * process, restarts it when it crashes (with backoff, and a bound on how many
 * times per window), replays its setup after every start, and shuts it down
 * cleanly.
 *
 * Fail closed: calls in flight when a worker dies are rejected with code
 * `crashed` — never silently retried, because the supervisor cannot know
 * whether a call had effects. Calls made while it restarts wait for the new
 * process; after too many crashes the worker is `failed` and calls reject.
 */
import { setPriority } from 'node:os';
import { launchWorker, type LaunchOptions, type WorkerExit, type WorkerLauncher } from './workerProcess';
import { describeExit, WorkerConnection, type CallOptions } from './workerConnection';
import type { WorkerEntry } from './workerEntry';
import { workerRegistry, type WorkerDescriptor, type WorkerRegistry, type WorkerReporter } from './workerRegistry';
import { WorkerCallError, type MethodName, type ParamsOf, type ProgressOf, type ResultOf, type RpcProtocol } from './workerMessages';

export type WorkerState = 'idle' | 'starting' | 'running' | 'restarting' | 'failed' | 'stopped';

export interface SupervisorOptions<P extends RpcProtocol> {
  readonly name: string;
  readonly protocol: P;
  /** Called at every (re)start, so a rebuilt build or a changed env is picked up. */
  readonly entry: () => WorkerEntry;
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /**
   * Lowers the process's scheduling priority (POSIX nice, 0–19) at every
   * start: how roles sharing a few CPU cores share them (recipe device map).
   */
  readonly nice?: number;
  /** Runs after each start, before any other call: load the model, set the adapter, … */
  readonly setup?: (connection: WorkerConnection<P>) => Promise<void>;
  readonly startTimeoutMs?: number;
  /** Restarts allowed within `restartWindowMs` before the worker is `failed`. */
  readonly maxRestarts?: number;
  readonly restartWindowMs?: number;
  readonly restartDelayMs?: number;
  readonly onLog?: (line: string, stream: 'stdout' | 'stderr') => void;
  readonly onStateChange?: (state: WorkerState, detail?: string) => void;
  /** Its role and GPUs, for the workers panel (default: the role is `name`, on the CPU). */
  readonly describe?: WorkerDescriptor;
  /** Starts each process (default: `launchWorker`, on this host; a Ray runner submits a job instead). */
  readonly launch?: WorkerLauncher;
  /** Where it reports its processes (default: the lab process's `workerRegistry`). */
  readonly registry?: WorkerRegistry;
}

export class SupervisedWorker<P extends RpcProtocol> {
  private connection: WorkerConnection<P> | undefined;
  private started: Promise<WorkerConnection<P>> | undefined;
  private currentState: WorkerState = 'idle';
  private readonly restartTimes: number[] = [];
  private failure: string | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private readonly reporter: WorkerReporter;

  constructor(private readonly options: SupervisorOptions<P>) {
    this.reporter = (options.registry ?? workerRegistry).register(options.name, options.describe);
  }

  get state(): WorkerState {
    return this.currentState;
  }

  get pid(): number | undefined {
    return this.connection?.process.pid;
  }

  /** Starts the worker (idempotent); resolves once it is set up. */
  start(): Promise<void> {
    if (this.currentState === 'stopped') return Promise.reject(new WorkerCallError('not_running', `worker ${this.options.name} was shut down`));
    if (!this.started) this.started = this.spawn('starting');
    return this.started.then(() => undefined);
  }

  async call<M extends MethodName<P>>(method: M, params: ParamsOf<P, M>, options?: CallOptions<ProgressOf<P, M>>): Promise<ResultOf<P, M>> {
    switch (this.currentState) {
      case 'failed':
        throw new WorkerCallError('not_running', `${method}: worker ${this.options.name} failed: ${this.failure ?? 'unknown'}`);
      case 'stopped':
        throw new WorkerCallError('not_running', `${method}: worker ${this.options.name} was shut down`);
      case 'idle':
        await this.start();
        break;
      case 'starting':
      case 'restarting':
      case 'running':
        break;
      default: {
        const unreachable: never = this.currentState;
        throw new Error(`unknown state ${String(unreachable)}`);
      }
    }
    const connection = await (this.started ?? Promise.reject(new WorkerCallError('not_running', 'not started')));
    return connection.call(method, params, options);
  }

  /**
   * Asks the worker to finish and exit; after `graceMs` sends SIGTERM, and
   * SIGKILL after as long again. Resolves when the process is gone.
   */
  async shutdown(graceMs = 5000): Promise<void> {
    try {
      await this.stopProcess(graceMs);
    } finally {
      this.reporter.remove();
    }
  }

  private async stopProcess(graceMs: number): Promise<void> {
    this.setState('stopped');
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const connection = this.connection;
    if (!connection || connection.exited) return;
    const gone = new Promise<void>((resolve) => connection.process.onExit(() => resolve()));
    connection.requestShutdown(graceMs).catch(() => undefined);
    const timeout = (ms: number) => new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms).unref());
    if ((await Promise.race([gone, timeout(graceMs)])) !== 'timeout') return;
    connection.process.kill('SIGTERM');
    if ((await Promise.race([gone, timeout(graceMs)])) !== 'timeout') return;
    connection.process.kill('SIGKILL');
    await gone;
  }

  private setState(state: WorkerState, detail?: string): void {
    if (this.currentState === 'stopped' && state !== 'stopped') return;
    this.currentState = state;
    this.reporter.state(state, detail);
    this.options.onStateChange?.(state, detail);
  }

  private spawn(state: 'starting' | 'restarting'): Promise<WorkerConnection<P>> {
    this.setState(state);
    const { name, protocol, env, cwd, onLog, startTimeoutMs = 30_000 } = this.options;
    let connection: WorkerConnection<P>;
    const launchOptions: LaunchOptions = {
      name,
      ...(env ? { env } : {}),
      ...(cwd ? { cwd } : {}),
      onLog: (line, stream) => {
        if (stream === 'stderr') connection?.noteLog(line);
        this.reporter.log(line, stream);
        onLog?.(line, stream);
      },
    };
    try {
      const entry = this.options.entry();
      const launched = (this.options.launch ?? launchWorker)(entry, launchOptions);
      this.reporter.launched(entry, launched.pid, launched.label);
      connection = new WorkerConnection(name, protocol, launched, startTimeoutMs);
    } catch (error) {
      this.failure = (error as Error).message;
      this.setState('failed', this.failure);
      return Promise.reject(new WorkerCallError('start_failed', this.failure));
    }
    this.connection = connection;
    connection.process.onExit((exit) => this.onExit(connection, exit));
    const ready = (async () => {
      await connection.whenReady();
      const { nice } = this.options;
      const pid = connection.process.pid;
      // An Electron utility process knows its pid only once it has spawned.
      if (pid !== undefined) this.reporter.pidKnown(pid);
      if (nice && pid !== undefined) setPriority(pid, nice);
      await this.options.setup?.(connection);
      this.setState('running');
      return connection;
    })();
    ready.catch((error: unknown) => {
      // A setup that fails on a live process leaves it useless: stop it.
      // onExit then decides whether to try again.
      if (!connection.exited) {
        this.failure = (error as Error).message;
        connection.process.kill('SIGKILL');
      }
    });
    return ready;
  }

  private onExit(connection: WorkerConnection<P>, exit: WorkerExit): void {
    if (connection !== this.connection || this.currentState === 'stopped') return;
    const reason = describeExit(this.options.name, exit);
    const now = Date.now();
    const { maxRestarts = 3, restartWindowMs = 60_000, restartDelayMs = 250 } = this.options;
    while (this.restartTimes.length > 0 && now - (this.restartTimes[0] as number) > restartWindowMs) this.restartTimes.shift();
    const restarting = this.restartTimes.length < maxRestarts;
    this.reporter.exited(reason, restarting);
    if (!restarting) {
      this.failure = `${reason} (after ${this.restartTimes.length} restarts within ${restartWindowMs} ms)`;
      this.started = Promise.reject(new WorkerCallError('not_running', this.failure));
      this.started.catch(() => undefined);
      this.setState('failed', this.failure);
      return;
    }
    this.restartTimes.push(now);
    const delay = restartDelayMs * 2 ** (this.restartTimes.length - 1);
    this.setState('restarting', reason);
    // Calls arriving meanwhile wait on this promise, which settles after the new process is set up.
    this.started = new Promise<WorkerConnection<P>>((resolve, reject) => {
      this.restartTimer = setTimeout(() => {
        if (this.currentState === 'stopped') {
          reject(new WorkerCallError('not_running', `worker ${this.options.name} was shut down`));
          return;
        }
        // The registry may hold a restart (a test's barrier); without a hold this resolves at once.
        this.reporter
          .beforeRestart()
          .then(() => {
            if (this.currentState === 'stopped') throw new WorkerCallError('not_running', `worker ${this.options.name} was shut down`);
            return this.spawn('restarting');
          })
          .then(resolve, reject);
      }, delay);
    });
    this.started.catch(() => undefined);
  }
}
