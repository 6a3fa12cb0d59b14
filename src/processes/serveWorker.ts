/**
 * The worker side of the supervisor's RPC: listens on whichever channel the
 * process was started with (Node IPC, Electron's parentPort, or JSON lines on
 * stdin/stdout), validates each request's params against the protocol,
 * dispatches to a handler, and answers `{ id, result }` or
 * `{ id, error: { code, message } }`. Handlers may stream `progress`.
 *
 * It also exits when the parent goes away (IPC disconnect / stdin end), so a
 * crashed lab never leaves orphaned engines behind.
 */
import { createInterface } from 'node:readline';
import { WORKER_CHANNEL_ENV, type WorkerChannel } from './workerProcess';
import { RequestMessageSchema, SHUTDOWN_METHOD, type MethodName, type ProgressOf, type RpcProtocol } from './workerMessages';
import type { z } from 'zod';

/** An error a handler throws to answer with a specific code (default `internal`). */
export class WorkerError extends Error {
  override readonly name = 'WorkerError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface HandlerContext<Progress> {
  /** Sends a progress report for this request (streamed tokens, training steps, …). */
  readonly progress: (progress: Progress) => void;
}

export type Handlers<P extends RpcProtocol> = {
  readonly [M in MethodName<P>]: (
    params: z.output<P[M]['params']>,
    context: HandlerContext<ProgressOf<P, M>>,
  ) => Promise<z.input<P[M]['result']>> | z.input<P[M]['result']>;
};

export interface ServeOptions {
  /** Runs before the process exits on shutdown or parent loss. */
  readonly dispose?: () => Promise<void> | void;
}

interface Channel {
  send(message: unknown): void;
  onMessage(listener: (message: unknown) => void): void;
  onParentGone(listener: () => void): void;
}

interface ElectronParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
}

/**
 * The supervisor names the channel in the environment. Without it (a worker
 * started by hand) JSON lines on stdin/stdout are used: never guess IPC, which
 * could be someone else's channel (a test runner's, for one).
 */
function openChannel(): Channel {
  const requested = (process.env[WORKER_CHANNEL_ENV] ?? 'jsonl') as WorkerChannel;
  const parentPort = (process as unknown as { parentPort?: ElectronParentPort }).parentPort;
  if (requested === 'utility') {
    if (!parentPort) throw new Error('worker: started as a utility process but process.parentPort is missing');
    return {
      send: (message) => parentPort.postMessage(message),
      onMessage: (listener) => parentPort.on('message', (event) => listener(event.data)),
      // A utility process is terminated with its parent by Electron.
      onParentGone: () => undefined,
    };
  }
  if (requested === 'ipc') {
    const send = process.send?.bind(process);
    if (!send) throw new Error('worker: started for IPC but no IPC channel is open');
    return {
      send: (message) => {
        if (process.connected) send(message);
      },
      onMessage: (listener) => process.on('message', listener),
      onParentGone: (listener) => process.on('disconnect', listener),
    };
  }
  if (requested !== 'jsonl') throw new Error(`worker: unknown ${WORKER_CHANNEL_ENV}=${String(requested)}`);
  // JSON lines: stdout is the channel, so everything else must go to stderr.
  const write = process.stdout.write.bind(process.stdout);
  console.log = console.error;
  console.info = console.error;
  return {
    send: (message) => {
      write(`${JSON.stringify(message)}\n`);
    },
    onMessage: (listener) => {
      const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
      lines.on('line', (line) => {
        if (line.trim() === '') return;
        try {
          listener(JSON.parse(line));
        } catch {
          console.error(`worker: ignoring a line that is not JSON: ${line.slice(0, 200)}`);
        }
      });
    },
    onParentGone: (listener) => process.stdin.on('end', listener),
  };
}

export function serveWorker<P extends RpcProtocol>(protocol: P, handlers: Handlers<P>, options: ServeOptions = {}): void {
  const channel = openChannel();
  let exiting = false;
  const exit = async (code: number) => {
    if (exiting) return;
    exiting = true;
    try {
      await options.dispose?.();
    } catch (error) {
      console.error(`worker: dispose failed: ${(error as Error).message}`);
    }
    // Let the last answer flush before the process goes.
    setImmediate(() => process.exit(code));
  };

  channel.onParentGone(() => {
    console.error('worker: the lab is gone (its channel closed): exiting');
    void exit(0);
  });

  channel.onMessage((raw) => {
    const request = RequestMessageSchema.safeParse(raw);
    if (!request.success) {
      console.error(`worker: ignoring a malformed request: ${JSON.stringify(raw).slice(0, 200)}`);
      return;
    }
    const { id, method, params } = request.data;
    if (method === SHUTDOWN_METHOD) {
      channel.send({ id, result: { ok: true } });
      void exit(0);
      return;
    }
    void answer(id, method, params);
  });

  async function answer(id: number, method: string, params: unknown): Promise<void> {
    const spec = Object.hasOwn(protocol, method) ? protocol[method] : undefined;
    const handler = Object.hasOwn(handlers, method) ? (handlers as Record<string, Handlers<P>[MethodName<P>]>)[method] : undefined;
    if (!spec || !handler) {
      channel.send({ id, error: { code: 'unknown_method', message: `no method ${JSON.stringify(method)}` } });
      return;
    }
    const parsed = spec.params.safeParse(params);
    if (!parsed.success) {
      channel.send({ id, error: { code: 'bad_request', message: `${method}: invalid params: ${parsed.error.message}` } });
      return;
    }
    try {
      const result = await handler(parsed.data as never, { progress: (progress: unknown) => channel.send({ id, progress }) } as never);
      channel.send({ id, result });
    } catch (error) {
      const code = error instanceof WorkerError ? error.code : 'internal';
      const message = error instanceof Error ? error.message : String(error);
      // The answer tells the caller; the log keeps it for a person reading the worker's output.
      console.error(`worker: ${method} failed (${code}): ${message}`);
      channel.send({ id, error: { code, message } });
    }
  }

  channel.send({ ready: true, pid: process.pid });
}
