/**
 * The OpenAI-compatible gateway in front of the serving engine, on
 * node:http (three routes do not need a framework): `POST
 * /v1/chat/completions`, `GET /v1/models[/{id}]`, `GET /healthz`.
 * Loopback only, Host checked, the per-launch token required on every route.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleChatCompletion, VERSION_HEADER, type ChatCompletionContext, type DefaultSampling } from './chatCompletionHandler';
import type { EngineClient } from '../../core/protocols/engineProtocol';
import type { GatewayTokenizer } from '../../core/protocols/gatewayTokenizer';
import { methodNotAllowed, notFound, toOpenAiError } from './openAiError';
import { checkBearerToken, checkHost, parseJsonBody, readBody } from '../http/requestGuards';
import type { ServingState } from '../../run/servingState';
import { TurnLog } from '../../run/turnLog';

export const DEFAULT_MODEL_ID = 'gatelab-policy';
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;
/** The recipe's sampling (docs/design.md, The objective): T 0.6, top-p 0.95, top-k 20. */
export const RECIPE_SAMPLING: DefaultSampling = { temperature: 0.6, topP: 0.95, topK: 20 };

export type GatewayOptions = {
  engine: EngineClient;
  serving: ServingState;
  tokenizer: GatewayTokenizer;
  /** The per-launch token clients send as a Bearer key. */
  token: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  modelId?: string;
  turnLog?: TurnLog;
  bodyLimitBytes?: number;
  defaultSampling?: DefaultSampling;
  turnLogTopK?: number;
};

export type Gateway = {
  readonly url: string;
  readonly port: number;
  readonly turnLog: TurnLog;
  readonly serving: ServingState;
  /** Stops accepting requests, lets in-flight ones finish, then closes every connection. */
  close(): Promise<void>;
};

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  if (options.token.length < 16) throw new Error('the gateway token must be at least 16 characters');
  const bodyLimit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const ctx: ChatCompletionContext = {
    engine: options.engine,
    serving: options.serving,
    tokenizer: options.tokenizer,
    turnLog: options.turnLog ?? new TurnLog(),
    modelId: options.modelId ?? DEFAULT_MODEL_ID,
    defaultSampling: options.defaultSampling ?? RECIPE_SAMPLING,
    turnLogTopK: options.turnLogTopK ?? 4,
  };
  const startedAt = Math.floor(Date.now() / 1000);
  let port = 0;
  const pending = new Set<Promise<void>>();

  const route = async (request: IncomingMessage, response: ServerResponse, receivedAt: number): Promise<void> => {
    checkHost(request, port);
    checkBearerToken(request, options.token);
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    const method = request.method ?? 'GET';
    const version = ctx.serving.current;

    if (path === '/v1/chat/completions') {
      if (method !== 'POST') throw methodNotAllowed(method, path);
      const body = parseJsonBody(await readBody(request, bodyLimit));
      await handleChatCompletion(ctx, body, request.headers, response, receivedAt);
      return;
    }
    if (path === '/v1/models' || path.startsWith('/v1/models/')) {
      if (method !== 'GET') throw methodNotAllowed(method, path);
      const model = { id: ctx.modelId, object: 'model', created: startedAt, owned_by: 'gatelab' } as const;
      if (path === '/v1/models') return sendJson(response, 200, { object: 'list', data: [model] }, version.version);
      const id = safeDecode(path.slice('/v1/models/'.length));
      if (id !== ctx.modelId) throw notFound(`The model '${id}' does not exist.`, 'model_not_found', 'model');
      return sendJson(response, 200, model, version.version);
    }
    if (path === '/healthz') {
      if (method !== 'GET') throw methodNotAllowed(method, path);
      // The engine's own health (engine protocol): a gateway whose engine cannot answer is not healthy.
      const engine = await ctx.engine.health().catch((error: unknown) => ({ ok: false, version: null, pending: 0, error: (error as Error).message }));
      const body = {
        status: engine.ok ? 'ok' : 'unavailable',
        model: ctx.modelId,
        version: version.version,
        sha256: version.sha256,
        inFlight: ctx.serving.inFlight,
        engine,
      };
      return sendJson(response, engine.ok ? 200 : 503, body, version.version);
    }
    throw notFound(`Unknown path ${path}.`, 'unknown_url');
  };

  const server = createServer((request, response) => {
    const receivedAt = performance.now();
    const handled = route(request, response, receivedAt).catch((error: unknown) => {
      const apiError = toOpenAiError(error);
      if (apiError.status >= 500) console.error(`[gateway] ${request.method} ${request.url}: ${apiError.message}`);
      if (response.headersSent) {
        response.end();
        return;
      }
      // A body we refused to read is still arriving; closing the connection stops it.
      if (apiError.status === 413) response.setHeader('Connection', 'close');
      sendJson(response, apiError.status, apiError.toBody(), null);
    });
    const tracked = handled.finally(() => pending.delete(tracked));
    pending.add(tracked);
  });
  // Slow or stuck clients must not hold a connection forever.
  server.headersTimeout = 30_000;
  server.requestTimeout = 0; // long generations stream for a while; per-request limits are max_tokens

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    turnLog: ctx.turnLog,
    serving: ctx.serving,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await Promise.allSettled([...pending]);
      server.closeAllConnections();
      await closed;
    },
  };
}

/** A malformed %-escape names no model; it must not become a 500. */
function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown, version: string | null): void {
  const headers: Record<string, string> = { 'Content-Type': 'application/json; charset=utf-8' };
  if (version) headers[VERSION_HEADER] = version;
  response.writeHead(status, headers);
  response.end(JSON.stringify(body));
}
