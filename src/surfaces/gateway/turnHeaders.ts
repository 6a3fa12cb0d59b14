/**
 * OpenClaw's per-turn headers (OpenClaw-RL's rl-training-headers):
 * `X-Session-Id`, `X-Turn-Type: main|side`, `X-Session-Done: true|false`.
 * A malformed value is a 400, never a silent guess: a main turn recorded as
 * a side turn would never train.
 *
 * Also OpenClaw's own session-affinity headers (`session_id`,
 * `x-session-affinity`, `x-client-request-id` = `<session-id>:<n>`), which it
 * sends without any plugin: recorded as they came, so live mode can tell one
 * conversation from another. They never change how a request is served.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { badRequest } from './openAiError';
import { turnTypes, type TurnType } from '../../run/turnLog';

/** OpenClaw's session-affinity headers, each only when sent (the same on every turn of one session). */
export type AffinityHeaders = { sessionId?: string; sessionAffinity?: string; clientRequestId?: string };

export type TurnHeaders = { sessionId: string | null; turnType: TurnType; sessionDone: boolean; affinity: AffinityHeaders };

const maxSessionIdLength = 256;

function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  if (Array.isArray(value)) throw badRequest(`Header ${name} must appear at most once.`, null, 'invalid_header');
  return value === undefined ? undefined : value.trim();
}

export function parseTurnHeaders(headers: IncomingHttpHeaders): TurnHeaders {
  const sessionId = single(headers, 'x-session-id');
  if (sessionId !== undefined && (sessionId.length === 0 || sessionId.length > maxSessionIdLength)) {
    throw badRequest(`Header X-Session-Id must be 1–${maxSessionIdLength} characters.`, null, 'invalid_header');
  }

  const rawTurnType = single(headers, 'x-turn-type')?.toLowerCase();
  let turnType: TurnType = 'side';
  if (rawTurnType !== undefined) {
    const known = turnTypes.find((type) => type === rawTurnType);
    if (!known) throw badRequest(`Header X-Turn-Type must be one of ${turnTypes.join(', ')}; got ${JSON.stringify(rawTurnType)}.`, null, 'invalid_header');
    turnType = known;
  }

  const rawDone = single(headers, 'x-session-done')?.toLowerCase();
  let sessionDone = false;
  if (rawDone !== undefined) {
    if (rawDone === 'true' || rawDone === '1') sessionDone = true;
    else if (rawDone === 'false' || rawDone === '0') sessionDone = false;
    else throw badRequest(`Header X-Session-Done must be true or false; got ${JSON.stringify(rawDone)}.`, null, 'invalid_header');
  }

  return { sessionId: sessionId ?? null, turnType, sessionDone, affinity: parseAffinityHeaders(headers) };
}

const affinityHeaderNames = { sessionId: 'session_id', sessionAffinity: 'x-session-affinity', clientRequestId: 'x-client-request-id' } as const;

/** The affinity headers sent, trimmed; an empty or over-long one is left out (it only groups turns, it never decides serving). */
function parseAffinityHeaders(headers: IncomingHttpHeaders): AffinityHeaders {
  const out: AffinityHeaders = {};
  for (const [field, name] of Object.entries(affinityHeaderNames) as [keyof AffinityHeaders, string][]) {
    const value = single(headers, name);
    if (value !== undefined && value.length > 0 && value.length <= maxSessionIdLength) out[field] = value;
  }
  return out;
}
