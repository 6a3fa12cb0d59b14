/**
 * The checks every request passes before it reaches a route (docs/design.md,
 * invariant 7): the Host header names this loopback server (a page on
 * another origin that rebinds its DNS to 127.0.0.1 still sends its own
 * host name), the per-launch token is presented as a Bearer key, and the
 * body stays under the limit.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { badRequest, forbiddenHost, payloadTooLarge, unauthorized } from '../gateway/openAiError';

export function checkHost(request: IncomingMessage, port: number): void {
  const host = request.headers.host ?? '';
  const allowed = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (!allowed.includes(host.toLowerCase())) throw forbiddenHost(host);
}

/** Compares digests so the comparison takes the same time whatever the key's length. */
const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

export function checkBearerToken(request: IncomingMessage, token: string): void {
  const header = request.headers.authorization;
  if (!header) throw unauthorized("You didn't provide an API key. Send the per-launch token as 'Authorization: Bearer <token>'.");
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!match?.[1] || !timingSafeEqual(digest(match[1]), digest(token))) {
    throw unauthorized('Incorrect API key provided.');
  }
}

/** Reads the whole body, refusing (413) as soon as it is known to exceed the limit. */
export async function readBody(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = Number(request.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limitBytes) throw payloadTooLarge(limitBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limitBytes) throw payloadTooLarge(limitBytes);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) throw badRequest('The request body is empty; send a JSON object.', null, 'invalid_json');
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch (error) {
    throw badRequest(`The request body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`, null, 'invalid_json');
  }
}
