/**
 * The lab's end of a server worker's tunnel (bridgeMessages.ts, `server`
 * mode): a TCP listener on 127.0.0.1 of this host whose every accepted
 * connection becomes one stream over the connector's WebSocket to the
 * server on its node. An HTTP client (VllmEngineClient) talks to this port
 * exactly as it would to a local server — health included.
 *
 * The listener outlives the connector's connections (its port is fixed when
 * the engine starts, so the client's base URL never changes): across a
 * restart, connections accepted while no connector is attached are closed at
 * once (a health check fails, a request fails like one to a dead local
 * server), and a lost connection closes every stream it carried.
 *
 * Loopback only, and no token of its own: the server behind it requires its
 * own per-launch key (VLLM_API_KEY) on every request but /health.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/** The connector side of the tunnel, as the lab sees it (RemoteWorkerProcess implements it). */
export interface StreamCarrier {
  openStream(stream: number): void;
  streamData(stream: number, bytes: Buffer): void;
  closeStream(stream: number): void;
}

export class LoopbackTunnel {
  readonly #server: Server;
  readonly #sockets = new Map<number, Socket>();
  #carrier: StreamCarrier | undefined;
  #listening: Promise<number> | undefined;
  #next = 1;
  #closed = false;

  constructor(private readonly onLog?: (line: string) => void) {
    this.#server = createServer({ allowHalfOpen: false }, (socket) => this.#accept(socket));
  }

  /** The loopback port clients connect to (starts listening on first use). */
  port(): Promise<number> {
    this.#listening ??= new Promise<number>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(0, '127.0.0.1', () => {
        this.#server.off('error', reject);
        this.#server.unref();
        resolve((this.#server.address() as AddressInfo).port);
      });
    });
    return this.#listening;
  }

  /** The connector of the server's current launch: new connections go to it. */
  attach(carrier: StreamCarrier): void {
    this.#dropStreams();
    this.#carrier = carrier;
  }

  /** That connector is gone: every stream it carried ends, and new connections are refused until the next attach. */
  detach(carrier: StreamCarrier): void {
    if (this.#carrier !== carrier) return;
    this.#carrier = undefined;
    this.#dropStreams();
  }

  /** Bytes the server sent on a stream. */
  received(carrier: StreamCarrier, stream: number, bytes: Buffer): void {
    if (carrier !== this.#carrier) return;
    this.#sockets.get(stream)?.write(bytes);
  }

  /** The connector ended a stream (the server closed it, or it could not be opened). */
  ended(carrier: StreamCarrier, stream: number, error?: string): void {
    if (carrier !== this.#carrier) return;
    const socket = this.#sockets.get(stream);
    if (!socket) return;
    this.#sockets.delete(stream);
    if (error !== undefined) {
      this.onLog?.(`tunnel stream ${stream}: ${error}`);
      socket.destroy();
    } else {
      socket.end();
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#carrier = undefined;
    this.#dropStreams();
    if (this.#listening) await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(socket: Socket): void {
    const carrier = this.#carrier;
    if (this.#closed || !carrier) {
      socket.destroy();
      return;
    }
    const stream = this.#next++;
    this.#sockets.set(stream, socket);
    socket.on('error', () => undefined); // a reset by the client ends the stream like a close
    try {
      carrier.openStream(stream);
    } catch {
      this.#sockets.delete(stream);
      socket.destroy();
      return;
    }
    socket.on('data', (bytes: Buffer) => {
      try {
        carrier.streamData(stream, bytes);
      } catch {
        socket.destroy();
      }
    });
    socket.on('close', () => {
      // Closed here first: tell the connector (a close from its side already removed the stream).
      if (this.#sockets.get(stream) !== socket) return;
      this.#sockets.delete(stream);
      if (this.#carrier === carrier) {
        try {
          carrier.closeStream(stream);
        } catch {
          // the connection is gone; so is the stream
        }
      }
    });
  }

  #dropStreams(): void {
    const sockets = [...this.#sockets.values()];
    this.#sockets.clear();
    for (const socket of sockets) socket.destroy();
  }
}
