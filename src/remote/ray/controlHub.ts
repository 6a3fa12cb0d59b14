/**
 * The lab's control endpoint: a WebSocket server that a run's Ray job
 * (its driver, rayJob.ts) and a server actor's streams (loopbackTunnel.ts)
 * connect back to. Loopback by default; a real cluster binds an address its
 * nodes can reach (recipe `runner.control`).
 *
 * Trust: each launch gets its own id and a fresh random token; a connection
 * must name the id in its path (`/workers/<id>`) and carry the token
 * (`Authorization: Bearer …`), compared in constant time, or the upgrade is
 * refused with 401 before any message is read. A launch is answered once: a
 * second connection for the same id is refused. A browser cannot be made to
 * connect (a request with an Origin header is refused).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

export type ControlEndpointOptions = {
  /** The address to listen on (default loopback). */
  readonly bind: string;
  /** 0: a free port. */
  readonly port: number;
  /** The host name or IP the workers reach the lab at (default: the bind address). */
  readonly advertise?: string;
};

/** One launch a remote worker may connect for. */
export interface ExpectedWorker {
  readonly id: string;
  readonly token: string;
  /** The URL the job dials (ws://advertise:port/workers/<id>). */
  readonly url: string;
  /** Resolves with the socket once the worker connects with the right token. */
  readonly connected: Promise<WebSocket>;
  /** No connection is expected any more (the launch ended or gave up). */
  cancel(reason: string): void;
}

type Waiting = { token: Buffer; resolve: (socket: WebSocket) => void; reject: (error: Error) => void };

export class ControlHub {
  private readonly server = http.createServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('GateLab control endpoint: WebSocket only\n');
  });
  // A file crosses as one message (rayJob.ts): a trainer's checkpoint may be hundreds of MiB.
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 2 ** 31 - 1 });
  private readonly waiting = new Map<string, Waiting>();
  private listening: Promise<AddressInfo> | undefined;
  private next = 1;

  /** Called once closed (the registry of endpoints forgets it). */
  onClosed: (() => void) | undefined;

  constructor(private readonly options: ControlEndpointOptions) {
    this.server.on('upgrade', (req, socket, head) => this.upgrade(req, socket, head));
  }

  /** The address it listens on (starts listening on first use). */
  address(): Promise<AddressInfo> {
    this.listening ??= new Promise<AddressInfo>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port, this.options.bind, () => {
        this.server.off('error', reject);
        // The lab's own lifetime decides; an idle endpoint must not keep a CLI alive.
        this.server.unref();
        resolve(this.server.address() as AddressInfo);
      });
    });
    return this.listening;
  }

  async expect(label: string): Promise<ExpectedWorker> {
    const { port } = await this.address();
    const host = this.options.advertise ?? this.options.bind;
    if (host === '0.0.0.0' || host === '::') throw new Error(`runner.control.advertise is needed: the lab binds ${host}, which a node cannot dial`);
    const id = `${label.replace(/[^A-Za-z0-9-]/g, '-')}-${this.next++}-${randomBytes(4).toString('hex')}`;
    const token = randomBytes(32).toString('hex');
    let settle!: Waiting;
    const connected = new Promise<WebSocket>((resolve, reject) => {
      settle = { token: Buffer.from(token), resolve, reject };
    });
    connected.catch(() => undefined);
    this.waiting.set(id, settle);
    const hostPart = host.includes(':') ? `[${host}]` : host;
    return {
      id,
      token,
      url: `ws://${hostPart}:${port}/workers/${id}`,
      connected,
      cancel: (reason) => {
        if (this.waiting.get(id) === settle) {
          this.waiting.delete(id);
          settle.reject(new Error(reason));
        }
      },
    };
  }

  async close(): Promise<void> {
    for (const [id, waiting] of this.waiting) {
      this.waiting.delete(id);
      waiting.reject(new Error('the control endpoint closed'));
    }
    for (const client of this.wss.clients) client.terminate();
    if (this.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.onClosed?.();
  }

  private upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const refuse = (status: number, why: string) => {
      socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n${why}\n`);
    };
    const match = /^\/workers\/([A-Za-z0-9-]+)$/.exec(req.url ?? '');
    const waiting = match ? this.waiting.get(match[1] as string) : undefined;
    if (req.headers.origin !== undefined) return refuse(403, 'no browser connections');
    if (!match || !waiting) return refuse(404, 'no such launch');
    const presented = /^Bearer ([0-9a-f]+)$/.exec(req.headers.authorization ?? '')?.[1];
    const given = Buffer.from(presented ?? '');
    if (given.length !== waiting.token.length || !timingSafeEqual(given, waiting.token)) return refuse(401, 'bad token');
    this.waiting.delete(match[1] as string);
    this.wss.handleUpgrade(req, socket, head, (ws) => waiting.resolve(ws));
  }
}

const hubs = new Map<string, ControlHub>();
/** The lab process's endpoint for these options (one per bind address and port). */
export function controlHub(options: ControlEndpointOptions): ControlHub {
  const key = `${options.bind}|${options.port}|${options.advertise ?? ''}`;
  let hub = hubs.get(key);
  if (!hub) {
    const made = new ControlHub(options);
    made.onClosed = () => {
      if (hubs.get(key) === made) hubs.delete(key);
    };
    hub = made;
    hubs.set(key, hub);
  }
  return hub;
}
