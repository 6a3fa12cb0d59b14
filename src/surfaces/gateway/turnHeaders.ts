/**
 * OpenClaw's per-turn headers (OpenClaw-RL's rl-training-headers):
 * `X-Session-Id`, `X-Turn-Type: main|side`, `X-Session-Done: true|false`.
 * A malformed value is a 400, never a silent guess: a main turn recorded as
 * a side turn would never train.
 * Stock OpenClaw sends no `X-Session-Id`; a provider model with
 * `compat.sendSessionAffinityHeaders` sends `X-Session-Affinity` (the same
 * value on every turn of one agent session, also as `session_id` and
 * `x-client-request-id`), which then names the session.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { badRequest } from './openAiError';
import { turnTypes, type TurnType } from '../../run/turnLog';

export type TurnHeaders = { sessionId: string | null; turnType: TurnType; sessionDone: boolean };

const maxSessionIdLength = 256;

function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  if (Array.isArray(value)) throw badRequest(`Header ${name} must appear at most once.`, null, 'invalid_header');
  return value === undefined ? undefined : value.trim();
}

export function parseTurnHeaders(headers: IncomingHttpHeaders): TurnHeaders {
  const explicit = single(headers, 'x-session-id');
  const sessionId = explicit ?? single(headers, 'x-session-affinity');
  const header = explicit === undefined ? 'X-Session-Affinity' : 'X-Session-Id';
  if (sessionId !== undefined && (sessionId.length === 0 || sessionId.length > maxSessionIdLength)) {
    throw badRequest(`Header ${header} must be 1–${maxSessionIdLength} characters.`, null, 'invalid_header');
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

  return { sessionId: sessionId ?? null, turnType, sessionDone };
}
