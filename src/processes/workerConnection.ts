/**
 * Typed request/response RPC over one worker process's lifetime: waits for
 * the worker's `ready`, numbers requests, validates every answer against the
 * protocol, times calls out, and fails every pending call the moment the
 * process dies. Restarting is the supervisor's job (supervisedWorker.ts).
 */
import type { WorkerExit, WorkerProcess } from './workerProcess';
import {
  SHUTDOWN_METHOD,
  WorkerCallError,
  WorkerMessageSchema,
  type MethodName,
  type ParamsOf,
  type ProgressOf,
  type ResultOf,
  type RpcProtocol,
} from './workerMessages';

export interface CallOptions<Progress = unknown> {
  /** Rejects with code `timeout` after this long; the worker is not told. */
  readonly timeoutMs?: number;
  readonly onProgress?: (progress: Progress) => void;
}

interface PendingCall {
  readonly method: string;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: WorkerCallError) => void;
  readonly onProgress: ((progress: unknown) => void) | undefined;
  readonly timer: NodeJS.Timeout | undefined;
}

export function describeExit(name: string, exit: WorkerExit): string {
  if (exit.error) return `worker ${name} failed: ${exit.error}`;
  if (exit.signal) return `worker ${name} was killed by ${exit.signal}`;
  return `worker ${name} exited with code ${exit.code}`;
}

export class WorkerConnection<P extends RpcProtocol> {
  private nextId = 1;
  private readonly pending = new Map<number, PendingCall>();
  private exitInfo: WorkerExit | undefined;
  private readonly ready: Promise<void>;
  /** Recent stderr lines, quoted in crash reports. */
  private readonly recentLogs: string[] = [];

  constructor(
    private readonly name: string,
    private readonly protocol: P,
    readonly process: WorkerProcess,
    startTimeoutMs: number,
  ) {
    this.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new WorkerCallError('start_failed', `worker ${name} did not report ready within ${startTimeoutMs} ms`));
        process.kill('SIGKILL');
      }, startTimeoutMs);
      process.onMessage((raw) => {
        const parsed = WorkerMessageSchema.safeParse(raw);
        if (!parsed.success) {
          this.noteLog(`[${name}] unreadable message: ${JSON.stringify(raw).slice(0, 200)}`);
          return;
        }
        const message = parsed.data;
        if ('ready' in message) {
          clearTimeout(timer);
          resolve();
          return;
        }
        this.settle(message);
      });
      process.onExit((exit) => {
        clearTimeout(timer);
        this.exitInfo = exit;
        const reason = this.crashReason(exit);
        reject(new WorkerCallError('start_failed', reason));
        for (const [id, call] of this.pending) {
          this.pending.delete(id);
          if (call.timer) clearTimeout(call.timer);
          call.reject(new WorkerCallError('crashed', `${call.method}: ${reason}`));
        }
      });
    });
    // A start failure surfaces through whenReady(); never as an unhandled rejection.
    this.ready.catch(() => undefined);
  }

  /** Resolves when the worker listens; rejects if it dies or stays silent first. */
  whenReady(): Promise<void> {
    return this.ready;
  }

  get exited(): WorkerExit | undefined {
    return this.exitInfo;
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  noteLog(line: string): void {
    this.recentLogs.push(line);
    if (this.recentLogs.length > 20) this.recentLogs.shift();
  }

  call<M extends MethodName<P>>(method: M, params: ParamsOf<P, M>, options: CallOptions<ProgressOf<P, M>> = {}): Promise<ResultOf<P, M>> {
    return this.rawCall(method, params, options as CallOptions) as Promise<ResultOf<P, M>>;
  }

  /** Asks the worker to finish and exit (answered by serveWorker). */
  requestShutdown(timeoutMs: number): Promise<unknown> {
    return this.rawCall(SHUTDOWN_METHOD, {}, { timeoutMs });
  }

  private rawCall(method: string, params: unknown, options: CallOptions): Promise<unknown> {
    if (this.exitInfo) {
      return Promise.reject(new WorkerCallError('not_running', `${method}: ${this.crashReason(this.exitInfo)}`));
    }
    const spec = this.protocol[method];
    if (method !== SHUTDOWN_METHOD) {
      if (!spec) return Promise.reject(new WorkerCallError('unknown_method', `worker ${this.name} has no method ${method}`));
      const checked = spec.params.safeParse(params);
      if (!checked.success) {
        return Promise.reject(new WorkerCallError('bad_request', `${method}: invalid params: ${checked.error.message}`));
      }
    }
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      const timer =
        options.timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              this.pending.delete(id);
              reject(new WorkerCallError('timeout', `${method}: no answer from worker ${this.name} within ${options.timeoutMs} ms`));
            }, options.timeoutMs);
      this.pending.set(id, { method, resolve, reject, onProgress: options.onProgress, timer });
      try {
        this.process.send({ id, method, params });
      } catch (error) {
        this.pending.delete(id);
        if (timer) clearTimeout(timer);
        reject(new WorkerCallError('not_running', `${method}: ${(error as Error).message}`));
      }
    });
  }

  private settle(message: { id: number; result?: unknown; error?: { code: string; message: string }; progress?: unknown }): void {
    const call = this.pending.get(message.id);
    if (!call) return; // timed out earlier: the late answer is dropped
    const spec = this.protocol[call.method];
    if ('progress' in message) {
      if (!call.onProgress) return;
      const checked = spec?.progress ? spec.progress.safeParse(message.progress) : { success: true as const, data: message.progress };
      if (checked.success) call.onProgress(checked.data);
      else this.fail(message.id, call, new WorkerCallError('bad_response', `${call.method}: invalid progress: ${checked.error.message}`));
      return;
    }
    this.pending.delete(message.id);
    if (call.timer) clearTimeout(call.timer);
    if (message.error) {
      call.reject(new WorkerCallError(message.error.code, message.error.message));
      return;
    }
    if (!spec) {
      call.resolve(message.result);
      return;
    }
    const checked = spec.result.safeParse(message.result);
    if (checked.success) call.resolve(checked.data);
    else call.reject(new WorkerCallError('bad_response', `${call.method}: invalid result: ${checked.error.message}`));
  }

  private fail(id: number, call: PendingCall, error: WorkerCallError): void {
    this.pending.delete(id);
    if (call.timer) clearTimeout(call.timer);
    call.reject(error);
  }

  private crashReason(exit: WorkerExit): string {
    const base = describeExit(this.name, exit);
    const tail = this.recentLogs.slice(-5);
    return tail.length > 0 ? `${base}; last output:\n${tail.join('\n')}` : base;
  }
}
