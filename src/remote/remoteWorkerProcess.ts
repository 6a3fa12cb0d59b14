/**
 * A worker process on another machine, seen through its connector's
 * WebSocket (connectorMessages.ts) as the supervisor sees any worker: a
 * WorkerProcess. Requests go out in order; the worker's answers come back
 * validated by the same WorkerConnection as a local worker's, so bad input
 * gets the same errors. A lost connection is an exit — a crash the
 * supervisor handles like any other.
 *
 * Calls whose params or results name files (the trainer's candidates and
 * checkpoints) pass through `RemoteCallHooks`, which move the files by
 * content before the call goes out or its answer is delivered
 * (trainerWeightSync.ts): nothing relies on a shared filesystem.
 *
 * A server worker (an HTTP engine) answers no RPC: with a `tunnel`, each
 * connection the tunnel accepts becomes one more WebSocket from the
 * connector, joined to the server's port on its node (loopbackTunnel.ts).
 */
import { createHash } from 'node:crypto';
import type { WebSocket } from 'ws';
import { ExitSignal, type LaunchOptions, type WorkerExit, type WorkerProcess } from '../processes/workerProcess';
import { WorkerMessageSchema, type RequestMessage } from '../processes/workerMessages';
import type { ControlHub } from './controlHub';
import { connectorMessageSchema, fileHeaderSchema, fileMessage, splitFileMessage, type LabMessage } from './connectorMessages';
import type { LoopbackTunnel, StreamOpener } from './loopbackTunnel';

/** The remote side's scratch folder, by content. */
export interface RemoteFiles {
  /** The connector's scratch folder on its machine (absolute there). */
  readonly scratch: string;
  /** A file under the scratch folder, checked against the sha256 the connector computed while reading. */
  read(relativePath: string): Promise<Buffer>;
  /** Writes a file under the scratch folder; the connector checks the sha256 before it renames it into place. */
  put(relativePath: string, bytes: Uint8Array): Promise<void>;
}

/** Moves a call's files: `request` before it goes out, `answer` before its result reaches the lab. */
export interface RemoteCallHooks {
  request(request: RequestMessage, files: RemoteFiles): Promise<RequestMessage>;
  /** Called for results only (errors and progress pass through). Throwing answers the call with `transfer_failed`. */
  result(request: RequestMessage, result: unknown, files: RemoteFiles): Promise<unknown>;
}

export type RemoteWorkerSetup = {
  readonly name: string;
  readonly options: LaunchOptions;
  readonly hooks?: RemoteCallHooks | undefined;
  /** Where it runs, for the workers panel (`ray job …`). */
  readonly label: string;
  /** Asked to end the remote side (stop its job); the exit follows from the socket or the job's status. */
  readonly terminate: (signal: 'SIGTERM' | 'SIGKILL') => void;
  /** The control endpoint: a server's streams connect to it too. */
  readonly hub: ControlHub;
  /** A server worker: the tunnel its streams belong to (attached once the connector has said hello). */
  readonly tunnel?: LoopbackTunnel | undefined;
};

type Transfer = { readonly resolve: (bytes: Buffer) => void; readonly reject: (error: Error) => void };

/** How long a stream's connection from the connector may take before the lab gives up on it. */
const STREAM_CONNECT_MS = 30_000;

export class RemoteWorkerProcess implements WorkerProcess, StreamOpener {
  readonly pid = undefined;
  readonly label: string;
  private readonly exitSignal = new ExitSignal();
  private readonly listeners: Array<(message: unknown) => void> = [];
  private socket: WebSocket | undefined;
  private scratchDir: string | undefined;
  private readonly hello: Promise<void>;
  private helloReceived!: () => void;
  /** Outgoing requests, in order (a hook may take time; order must hold). */
  private outgoing: Promise<void> = Promise.resolve();
  private readonly requests = new Map<number, RequestMessage>();
  /** Answers in order of arrival (a hook on one answer must not let a later one overtake it). */
  private incoming: Promise<void> = Promise.resolve();
  private readonly transfers = new Map<number, Transfer>();
  private nextRef = 1;

  constructor(private readonly setup: RemoteWorkerSetup) {
    this.label = setup.label;
    this.hello = new Promise<void>((resolve) => {
      this.helloReceived = resolve;
    });
  }

  /** The connector connected: from now on its messages are the worker's. */
  attach(socket: WebSocket): void {
    if (this.exitSignal.fired) {
      socket.close(1000, 'the launch has ended');
      return;
    }
    this.socket = socket;
    socket.on('message', (data: Buffer, isBinary) => {
      try {
        if (isBinary) this.receiveFile(data);
        else this.receive(JSON.parse(data.toString()));
      } catch (error) {
        this.log(`ignoring a message from the connector: ${(error as Error).message}`);
      }
    });
    socket.on('close', (code, reason) => {
      this.fire({ code: null, signal: null, error: `the connection to ${this.label} was lost (${code}${reason.length > 0 ? `: ${reason.toString()}` : ''})` });
    });
    socket.on('error', (error) => this.log(`connection: ${error.message}`));
  }

  /** The launch ended without (or after) a connection: the remote job's status says why. */
  fire(exit: WorkerExit): void {
    if (this.exitSignal.fired) return;
    for (const [ref, transfer] of this.transfers) {
      this.transfers.delete(ref);
      transfer.reject(new Error(exit.error ?? 'the worker exited'));
    }
    this.setup.tunnel?.detach(this);
    this.exitSignal.fire(exit);
    if (this.socket && this.socket.readyState === this.socket.OPEN) this.socket.close(1000, 'the worker is gone');
  }

  get exited(): boolean {
    return this.exitSignal.fired;
  }

  send(message: RequestMessage): void {
    if (this.exitSignal.fired) throw new Error(`worker ${this.setup.name} has exited`);
    this.requests.set(message.id, message);
    this.outgoing = this.outgoing.then(async () => {
      await this.hello;
      let out = message;
      try {
        if (this.setup.hooks) out = await this.setup.hooks.request(message, this.files());
      } catch (error) {
        return this.answerWithError(message, 'transfer_failed', error);
      }
      try {
        this.write({ type: 'request', message: out });
      } catch (error) {
        this.answerWithError(message, 'not_running', error);
      }
    });
  }

  onMessage(listener: (message: unknown) => void): void {
    this.listeners.push(listener);
  }

  onExit(listener: (exit: WorkerExit) => void): void {
    this.exitSignal.on(listener);
  }

  kill(signal: 'SIGTERM' | 'SIGKILL'): void {
    if (this.exitSignal.fired) return;
    this.setup.terminate(signal);
    // SIGKILL means now: the connection is dropped, whatever the job does.
    if (signal === 'SIGKILL') this.socket?.terminate();
  }

  /** The remote scratch folder once the connector has said hello (rejects if the worker ends first). */
  async remoteFiles(): Promise<RemoteFiles> {
    const ended = new Promise<never>((_resolve, reject) => this.onExit((exit) => reject(new Error(exit.error ?? `worker ${this.setup.name} exited`))));
    ended.catch(() => undefined);
    await Promise.race([this.hello, ended]);
    return this.files();
  }

  /** StreamOpener: a connection the tunnel accepted gets its own WebSocket from the connector, joined to the server. */
  async openStream(): Promise<WebSocket> {
    const expected = await this.setup.hub.expect(`${this.setup.name}-stream`);
    // Bounded, not tied to the launch's exit (one listener per connection would pile up): an ended launch's
    // streams are dropped by the tunnel, and this expectation lapses.
    const timer = setTimeout(() => expected.cancel('the connector did not open the stream'), STREAM_CONNECT_MS);
    try {
      this.write({ type: 'open', launch: expected.id, token: expected.token });
      return await expected.connected;
    } finally {
      clearTimeout(timer);
      expected.cancel('the stream was not opened'); // nothing once it connected
    }
  }

  private files(): RemoteFiles {
    const scratch = this.scratchDir;
    if (scratch === undefined) throw new Error('the connector has not said hello');
    const transfer = (message: (ref: number) => string | Buffer) =>
      new Promise<Buffer>((resolve, reject) => {
        const ref = this.nextRef++;
        this.transfers.set(ref, { resolve, reject });
        try {
          this.sendRaw(message(ref));
        } catch (error) {
          this.transfers.delete(ref);
          reject(error as Error);
        }
      });
    return {
      scratch,
      read: (path) => transfer((ref) => JSON.stringify({ type: 'read', ref, path } satisfies LabMessage)),
      put: async (path, bytes) => {
        const sha256 = createHash('sha256').update(bytes).digest('hex');
        await transfer((ref) => fileMessage({ type: 'put', ref, path, sha256 }, bytes));
      },
    };
  }

  private receiveFile(data: Buffer): void {
    const { header, bytes } = splitFileMessage(data);
    const { ref, sha256 } = fileHeaderSchema.parse(header);
    const transfer = this.transfers.get(ref);
    if (!transfer) return;
    this.transfers.delete(ref);
    const actual = createHash('sha256').update(bytes).digest('hex');
    if (sha256 !== actual) transfer.reject(new Error(`a file arrived with sha256 ${actual}, the sender's was ${sha256}`));
    else transfer.resolve(bytes);
  }

  private receive(raw: unknown): void {
    const message = connectorMessageSchema.parse(raw);
    switch (message.type) {
      case 'hello':
        this.scratchDir = message.scratch;
        this.log(
          `connected from ${message.host} (pid ${message.pid}), scratch ${message.scratch}${message.port !== undefined ? `, server port ${message.port} there` : ''}`,
        );
        this.setup.tunnel?.attach(this);
        this.helloReceived();
        return;
      case 'worker':
        return this.fromWorker(message.message);
      case 'log':
        return this.setup.options.onLog?.(message.line, message.stream);
      case 'done':
      case 'failed': {
        const transfer = this.transfers.get(message.ref);
        this.transfers.delete(message.ref);
        if (message.type === 'done') transfer?.resolve(Buffer.alloc(0));
        else transfer?.reject(new Error(message.message));
        return;
      }
      case 'exit':
        return this.fire({ code: message.code, signal: message.signal });
      default: {
        const unreachable: never = message;
        throw new Error(`unknown connector message ${JSON.stringify(unreachable)}`);
      }
    }
  }

  private fromWorker(raw: unknown): void {
    const parsed = WorkerMessageSchema.safeParse(raw);
    // Unreadable worker lines go to the connection as they are: it logs them, as it does a local worker's.
    if (!parsed.success || !('id' in parsed.data)) return this.deliverInOrder(async () => raw);
    const answer = parsed.data;
    if (!('result' in answer)) {
      if ('error' in answer) this.requests.delete(answer.id);
      return this.deliverInOrder(async () => answer);
    }
    const request = this.requests.get(answer.id);
    this.requests.delete(answer.id);
    const hooks = this.setup.hooks;
    if (!hooks || !request) return this.deliverInOrder(async () => answer);
    this.deliverInOrder(async () => {
      try {
        return { id: answer.id, result: await hooks.result(request, answer.result, this.files()) };
      } catch (error) {
        return { id: answer.id, error: { code: 'transfer_failed', message: `${request.method}: ${(error as Error).message}` } };
      }
    });
  }

  private answerWithError(request: RequestMessage, code: string, error: unknown): void {
    this.requests.delete(request.id);
    this.deliver({ id: request.id, error: { code, message: `${request.method}: ${(error as Error).message}` } });
  }

  private deliverInOrder(produce: () => Promise<unknown>): void {
    this.incoming = this.incoming.then(async () => this.deliver(await produce()));
  }

  private deliver(message: unknown): void {
    for (const listener of this.listeners) listener(message);
  }

  private write(message: LabMessage): void {
    this.sendRaw(JSON.stringify(message));
  }

  private sendRaw(data: string | Buffer): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== socket.OPEN) throw new Error(`worker ${this.setup.name}: the connection is closed`);
    socket.send(data);
  }

  private log(line: string): void {
    this.setup.options.onLog?.(`[${this.setup.name}] ${line}`, 'stderr');
  }
}
