/**
 * The lab's end of a server actor's streams (rayRole.ts): a TCP
 * listener on 127.0.0.1 of this host whose every accepted connection is
 * joined to one WebSocket the actor opens for it, which the actor
 * joins to the server on its node. An HTTP client (VllmEngineClient) talks
 * to this port exactly as it would to a local server — health included.
 *
 * The listener outlives the actor's launches (its port is fixed when the
 * engine starts, so the client's base URL never changes): connections
 * accepted while no launch is attached are closed at once (a health check
 * fails, a request fails like one to a dead local server), and a launch that
 * ends closes every stream it carried.
 *
 * Loopback only, and no token of its own: the server behind it requires its
 * own per-launch key (VLLM_API_KEY) on every request but /health.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createWebSocketStream, type WebSocket } from 'ws';

/** The launch that carries the streams (RayRoleProcess implements it). */
export interface StreamOpener {
  openStream(): Promise<WebSocket>;
}

export class LoopbackTunnel {
  readonly #server: Server;
  #opener: StreamOpener | undefined;
  /** The connections of the attached launch. */
  readonly #sockets = new Set<Socket>();
  #listening: Promise<number> | undefined;
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

  /** The server's current launch: new connections go to it. */
  attach(opener: StreamOpener): void {
    this.#dropStreams();
    this.#opener = opener;
  }

  /** That launch is gone: every stream it carried ends, and new connections are refused until the next attach. */
  detach(opener: StreamOpener): void {
    if (this.#opener !== opener) return;
    this.#opener = undefined;
    this.#dropStreams();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#opener = undefined;
    this.#dropStreams();
    if (this.#listening) await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(socket: Socket): void {
    const opener = this.#opener;
    if (this.#closed || !opener) {
      socket.destroy();
      return;
    }
    this.#sockets.add(socket);
    socket.on('error', () => undefined); // a reset by the client ends the stream like a close
    socket.on('close', () => this.#sockets.delete(socket));
    socket.pause();
    opener.openStream().then(
      (ws) => {
        const stream = createWebSocketStream(ws);
        stream.on('error', (error) => {
          this.onLog?.(`tunnel stream: ${error.message}`);
          socket.destroy();
        });
        socket.on('close', () => stream.destroy());
        if (socket.destroyed) return stream.destroy();
        socket.pipe(stream).pipe(socket);
      },
      (error: Error) => {
        this.onLog?.(`tunnel stream: ${error.message}`);
        socket.destroy();
      },
    );
  }

  #dropStreams(): void {
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }
}
