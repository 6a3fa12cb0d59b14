import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { WebSocket } from 'ws';
import { LabError } from '../../contract';
import type { LabEnvelope, LabErrorCode, LabHandlers } from '../../contract';
import { dispatchLabCall } from '../../lab/requestDispatch';
import type { LabEventBus } from '../../lab/eventBus';
import { RENDERER_CSP, SECURITY_HEADERS } from './contentSecurityPolicy';
import { bearerToken, createLaunchToken, isAllowedHost, isAllowedOrigin, LOOPBACK_HOST, tokenMatches } from './browserGuards';
import { contentTypeOf, readStaticFile, resolveStaticPath } from './staticFiles';

export interface LabServerOptions {
  readonly handlers: LabHandlers;
  readonly events: LabEventBus;
  /** The built renderer (dist/renderer), or null to serve the API only. */
  readonly rendererDir: string | null;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  /** Defaults to a fresh random token; tests may pass their own. */
  readonly token?: string;
  readonly maxBodyBytes?: number;
}

export interface LabServer {
  readonly origin: string;
  /** The URL a person opens: the origin with the launch token. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

export const API_PREFIX = '/api/';
export const EVENTS_PATH = '/api/events';
const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

/** HTTP status per LabApi error code; the body is the envelope either way. */
export function httpStatusOf(code: LabErrorCode): number {
  switch (code) {
    case 'invalid-params':
      return 400;
    case 'invalid-csv':
      return 422;
    case 'not-found':
      return 404;
    case 'forbidden':
      return 403;
    case 'too-large':
      return 413;
    case 'conflict':
      return 409;
    case 'unavailable':
      return 503;
    case 'internal':
      return 500;
  }
}

/**
 * Browser mode's server: the renderer's files, `POST /api/<channel>` for
 * LabApi calls and a WebSocket at /api/events for lab events. It listens on
 * 127.0.0.1 only, and every request passes the Host check, the Origin check
 * and (except the renderer's static assets) the launch token.
 */
export async function startLabServer(options: LabServerOptions): Promise<LabServer> {
  const token = options.token ?? createLaunchToken();
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  let port = 0;

  const sockets = new Set<WebSocket>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const unsubscribe = options.events.subscribe((event, payload) => {
    const frame = JSON.stringify({ event, payload });
    for (const socket of sockets) if (socket.readyState === socket.OPEN) socket.send(frame);
  });

  const server = createServer((request, response) => {
    handleRequest(request, response).catch((error: unknown) => {
      if (!response.headersSent) {
        sendEnvelope(response, 500, {
          ok: false,
          error: { code: 'internal', message: error instanceof Error ? error.message : String(error) },
        });
      } else response.destroy();
    });
  });

  async function handleRequest(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!isAllowedHost(request.headers.host, port)) {
      return refuse(response, 403, 'forbidden', 'Host header not allowed (GateLab answers only 127.0.0.1/localhost)');
    }
    if (!isAllowedOrigin(request.headers.origin, port)) {
      return refuse(response, 403, 'forbidden', 'Origin not allowed');
    }
    const url = new URL(request.url ?? '/', `http://${LOOPBACK_HOST}:${port}`);

    if (url.pathname.startsWith(API_PREFIX)) {
      if (request.method !== 'POST') {
        response.setHeader('Allow', 'POST');
        return refuse(response, 405, 'invalid-params', 'LabApi calls are POST requests');
      }
      if (!tokenMatches(bearerToken(request.headers.authorization), token)) {
        return refuse(response, 401, 'forbidden', 'missing or wrong launch token');
      }
      return handleApiCall(request, response, url.pathname.slice(API_PREFIX.length));
    }

    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return refuse(response, 405, 'invalid-params', 'method not allowed');
    }
    const isPage = url.pathname === '/' || url.pathname === '/index.html';
    // The page itself needs the token; its hashed assets (bundled code, no
    // data) do not, since a <script src> cannot carry one.
    if (isPage && !tokenMatches(url.searchParams.get('token'), token)) {
      return refuse(response, 401, 'forbidden', 'missing or wrong launch token: open the URL GateLab printed');
    }
    return serveStatic(response, url.pathname, isPage);
  }

  async function handleApiCall(request: IncomingMessage, response: ServerResponse, channel: string): Promise<void> {
    const contentType = request.headers['content-type'] ?? '';
    if (!/^application\/json\b/i.test(contentType)) {
      return refuse(response, 415, 'invalid-params', 'LabApi calls send application/json');
    }
    const body = await readBody(request, maxBodyBytes);
    if (body === null) return refuse(response, 413, 'too-large', `request body over ${maxBodyBytes} bytes`);
    let params: unknown;
    try {
      params = body.length === 0 ? {} : JSON.parse(body);
    } catch {
      return refuse(response, 400, 'invalid-params', 'request body is not valid JSON');
    }
    const envelope = await dispatchLabCall(options.handlers, channel, params, { transport: 'http' });
    sendEnvelope(response, envelope.ok ? 200 : httpStatusOf(envelope.error.code), envelope);
  }

  async function serveStatic(response: ServerResponse, pathname: string, isPage: boolean): Promise<void> {
    if (options.rendererDir === null) {
      return refuse(response, 404, 'not-found', 'this server has no renderer (run `npm run build`)');
    }
    const file = resolveStaticPath(options.rendererDir, isPage ? '/index.html' : pathname);
    const bytes = file === null ? null : await readStaticFile(file);
    if (file === null || bytes === null) return refuse(response, 404, 'not-found', `no such file: ${pathname}`);
    response.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': contentTypeOf(file),
      'Content-Length': bytes.length,
      ...(isPage ? { 'Content-Security-Policy': RENDERER_CSP } : {}),
    });
    response.end(bytes);
  }

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', `http://${LOOPBACK_HOST}:${port}`);
    const reject = (status: number, reason: string): void => {
      socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    if (!isAllowedHost(request.headers.host, port)) return reject(403, 'Forbidden');
    if (!isAllowedOrigin(request.headers.origin, port)) return reject(403, 'Forbidden');
    if (url.pathname !== EVENTS_PATH) return reject(404, 'Not Found');
    // Browsers cannot set headers on a WebSocket handshake, so the token rides in the query.
    if (!tokenMatches(url.searchParams.get('token'), token)) return reject(401, 'Unauthorized');
    wss.handleUpgrade(request, socket, head, (ws) => {
      sockets.add(ws);
      ws.on('close', () => sockets.delete(ws));
      ws.on('error', () => sockets.delete(ws));
      // Events flow one way; anything a client sends is ignored.
    });
  });

  await new Promise<void>((resolvePromise, rejectPromise) => {
    server.once('error', rejectPromise);
    server.listen(options.port ?? 0, LOOPBACK_HOST, () => {
      server.off('error', rejectPromise);
      resolvePromise();
    });
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://${LOOPBACK_HOST}:${port}`;

  return {
    origin,
    url: `${origin}/?token=${token}`,
    port,
    token,
    async close() {
      unsubscribe();
      for (const socket of sockets) socket.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolvePromise) => server.close(() => resolvePromise()));
    },
  };
}

function refuse(response: ServerResponse, status: number, code: LabErrorCode, message: string): void {
  sendEnvelope(response, status, { ok: false, error: new LabError(code, message).toShape() });
}

function sendEnvelope(response: ServerResponse, status: number, envelope: LabEnvelope): void {
  const body = JSON.stringify(envelope);
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  response.end(body);
}

/** The body as text, or null once it passes `limit` bytes (then the rest is discarded). */
function readBody(request: IncomingMessage, limit: number): Promise<string | null> {
  return new Promise((resolvePromise, rejectPromise) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      else chunks.push(chunk);
    });
    request.on('end', () => resolvePromise(tooLarge ? null : Buffer.concat(chunks).toString('utf8')));
    request.on('error', rejectPromise);
  });
}
