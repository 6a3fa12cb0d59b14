/**
 * A worker process on another machine, seen through its connector's
 * WebSocket (bridgeMessages.ts) as the supervisor sees any worker: a
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
 * A server worker (an HTTP engine, the connector's `server` mode) answers no
 * RPC: with a `tunnel`, its connection carries the TCP streams that the
 * tunnel's loopback port accepts (loopbackTunnel.ts) to the server's port on
 * its node.
 */
import { createHash } from 'node:crypto';
import type { WebSocket } from 'ws';
import { ExitSignal, type LaunchOptions, type WorkerExit, type WorkerProcess } from '../processes/workerProcess';
import { WorkerMessageSchema, type RequestMessage } from '../processes/workerMessages';
import { CHUNK_BYTES, connectorMessageSchema, type LabMessage } from './bridgeMessages';
import type { LoopbackTunnel, StreamCarrier } from './loopbackTunnel';

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

type Transfer = {
  readonly resolve: (bytes: Buffer) => void;
  readonly reject: (error: Error) => void;
  readonly chunks: Buffer[];
};

export class RemoteWorkerProcess implements WorkerProcess, StreamCarrier {
  readonly pid = undefined;
  private readonly exitSignal = new ExitSignal();
  private readonly listeners: Array<(message: unknown) => void> = [];
  private socket: WebSocket | undefined;
  private scratchDir: string | undefined;
  private hello: Promise<void>;
  private helloReceived!: () => void;
  /** Outgoing requests, in order (a hook may take time; order must hold). */
  private outgoing: Promise<void> = Promise.resolve();
  private readonly requests = new Map<number, RequestMessage>();
  /** Answers in order of arrival (a hook on one answer must not let a later one overtake it). */
  private incoming: Promise<void> = Promise.resolve();
  private readonly transfers = new Map<number, Transfer>();
  private nextRef = 1;

  constructor(
    private readonly name: string,
    private readonly options: LaunchOptions,
    private readonly hooks: RemoteCallHooks | undefined,
    readonly label: string,
    /** Asked to end the remote side (stop its job); the exit follows from the socket or the job's status. */
    private readonly terminate: (signal: 'SIGTERM' | 'SIGKILL') => void,
    /** A server worker: the tunnel its streams belong to (attached once the connector reports the server's port). */
    private readonly tunnel?: LoopbackTunnel,
  ) {
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
    socket.on('message', (data, isBinary) => {
      if (isBinary) return this.log(`[${this.name}] ignoring a binary frame`);
      let raw: unknown;
      try {
        raw = JSON.parse(data.toString());
      } catch {
        return this.log(`[${this.name}] ignoring a frame that is not JSON`);
      }
      this.receive(raw);
    });
    socket.on('close', (code, reason) => {
      this.failTransfers(`the connection to ${this.label} closed`);
      this.fire({ code: null, signal: null, error: `the connection to ${this.label} was lost (${code}${reason.length > 0 ? `: ${reason.toString()}` : ''})` });
    });
    socket.on('error', (error) => this.log(`[${this.name}] connection: ${error.message}`));
  }

  /** The launch ended without (or after) a connection: the remote job's status says why. */
  fire(exit: WorkerExit): void {
    if (this.exitSignal.fired) return;
    this.failTransfers(exit.error ?? 'the worker exited');
    this.tunnel?.detach(this);
    this.exitSignal.fire(exit);
    if (this.socket && this.socket.readyState === this.socket.OPEN) this.socket.close(1000, 'the worker is gone');
  }

  get exited(): boolean {
    return this.exitSignal.fired;
  }

  send(message: RequestMessage): void {
    if (this.exitSignal.fired) throw new Error(`worker ${this.name} has exited`);
    this.requests.set(message.id, message);
    this.outgoing = this.outgoing.then(async () => {
      await this.hello;
      let out = message;
      if (this.hooks) {
        try {
          out = await this.hooks.request(message, this.files());
        } catch (error) {
          this.requests.delete(message.id);
          this.deliver({ id: message.id, error: { code: 'transfer_failed', message: `${message.method}: ${(error as Error).message}` } });
          return;
        }
      }
      try {
        this.write({ type: 'request', message: out });
      } catch (error) {
        this.requests.delete(message.id);
        this.deliver({ id: message.id, error: { code: 'not_running', message: `${message.method}: ${(error as Error).message}` } });
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
    this.terminate(signal);
    // SIGKILL means now: the connection is dropped, whatever the job does.
    if (signal === 'SIGKILL') this.socket?.terminate();
  }

  /** The remote scratch folder once the connector has said hello (rejects if the worker ends first). */
  async remoteFiles(): Promise<RemoteFiles> {
    const ended = new Promise<never>((_resolve, reject) => this.onExit((exit) => reject(new Error(exit.error ?? `worker ${this.name} exited`))));
    ended.catch(() => undefined);
    await Promise.race([this.hello, ended]);
    return this.files();
  }

  /** StreamCarrier: a connection the tunnel accepted. */
  openStream(stream: number): void {
    this.write({ type: 'open', stream });
  }

  streamData(stream: number, bytes: Buffer): void {
    this.write({ type: 'data', stream, data: bytes.toString('base64') });
  }

  closeStream(stream: number): void {
    this.write({ type: 'close', stream });
  }

  private files(): RemoteFiles {
    const scratch = this.scratchDir;
    if (scratch === undefined) throw new Error('the connector has not said hello');
    return {
      scratch,
      read: (path) =>
        new Promise<Buffer>((resolve, reject) => {
          const ref = this.nextRef++;
          this.transfers.set(ref, { resolve, reject, chunks: [] });
          this.write({ type: 'read', ref, path });
        }),
      put: (path, bytes) =>
        new Promise<void>((resolve, reject) => {
          const ref = this.nextRef++;
          this.transfers.set(ref, { resolve: () => resolve(), reject, chunks: [] });
          const sha256 = createHash('sha256').update(bytes).digest('hex');
          const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
          for (let at = 0; ; at += CHUNK_BYTES) {
            const last = at + CHUNK_BYTES >= buffer.byteLength;
            const data = buffer.subarray(at, at + CHUNK_BYTES).toString('base64');
            this.write(last ? { type: 'put', ref, path, data, last, sha256 } : { type: 'put', ref, path, data, last });
            if (last) break;
          }
        }),
    };
  }

  private receive(raw: unknown): void {
    const parsed = connectorMessageSchema.safeParse(raw);
    if (!parsed.success) return this.log(`[${this.name}] unreadable connector message: ${JSON.stringify(raw).slice(0, 200)}`);
    const message = parsed.data;
    switch (message.type) {
      case 'hello':
        this.scratchDir = message.scratch;
        this.log(`[${this.name}] connected from ${message.host} (pid ${message.pid}), scratch ${message.scratch}${message.port !== undefined ? `, server port ${message.port} there` : ''}`);
        if (this.tunnel) {
          // Fail closed: a server launch whose connector names no server port has nothing to carry.
          if (message.port === undefined) return this.fire({ code: null, signal: null, error: `${this.label}: the connector reported no server port` });
          this.tunnel.attach(this);
        }
        this.helloReceived();
        return;
      case 'data':
        return this.tunnel?.received(this, message.stream, Buffer.from(message.data, 'base64'));
      case 'close':
        return this.tunnel?.ended(this, message.stream, message.error);
      case 'worker':
        return this.fromWorker(message.message);
      case 'log':
        return this.options.onLog?.(message.line, message.stream);
      case 'chunk': {
        const transfer = this.transfers.get(message.ref);
        if (!transfer) return;
        transfer.chunks.push(Buffer.from(message.data, 'base64'));
        if (!message.last) return;
        this.transfers.delete(message.ref);
        const bytes = Buffer.concat(transfer.chunks);
        const actual = createHash('sha256').update(bytes).digest('hex');
        if (message.sha256 !== actual) transfer.reject(new Error(`a file arrived with sha256 ${actual}, the sender's was ${message.sha256 ?? 'missing'}`));
        else transfer.resolve(bytes);
        return;
      }
      case 'done': {
        const transfer = this.transfers.get(message.ref);
        this.transfers.delete(message.ref);
        transfer?.resolve(Buffer.alloc(0));
        return;
      }
      case 'failed': {
        const transfer = this.transfers.get(message.ref);
        this.transfers.delete(message.ref);
        transfer?.reject(new Error(message.message));
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
    const hooks = this.hooks;
    if (!hooks || !request) return this.deliverInOrder(async () => answer);
    this.deliverInOrder(async () => {
      try {
        return { id: answer.id, result: await hooks.result(request, answer.result, this.files()) };
      } catch (error) {
        return { id: answer.id, error: { code: 'transfer_failed', message: `${request.method}: ${(error as Error).message}` } };
      }
    });
  }

  private deliverInOrder(produce: () => Promise<unknown>): void {
    this.incoming = this.incoming.then(async () => this.deliver(await produce()));
  }

  private deliver(message: unknown): void {
    for (const listener of this.listeners) listener(message);
  }

  private write(message: LabMessage): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== socket.OPEN) throw new Error(`worker ${this.name}: the connection is closed`);
    socket.send(JSON.stringify(message));
  }

  private failTransfers(reason: string): void {
    for (const [ref, transfer] of this.transfers) {
      this.transfers.delete(ref);
      transfer.reject(new Error(reason));
    }
  }

  private log(line: string): void {
    this.options.onLog?.(line, 'stderr');
  }
}
