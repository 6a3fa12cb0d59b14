import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** The only address any GateLab server listens on (docs/design.md, invariant 7). */
export const LOOPBACK_HOST = '127.0.0.1';

/** A fresh secret per launch: 32 random bytes, hex. */
export function createLaunchToken(): string {
  return randomBytes(32).toString('hex');
}

/**
 * DNS rebinding defence: a page on evil.example that rebinds its name to
 * 127.0.0.1 still sends `Host: evil.example`. Only our own loopback names
 * with our port are accepted.
 */
export function isAllowedHost(hostHeader: string | undefined, port: number): boolean {
  if (hostHeader === undefined) return false;
  const host = hostHeader.trim().toLowerCase();
  return host === `${LOOPBACK_HOST}:${port}` || host === `localhost:${port}`;
}

/**
 * A browser always sends Origin on a WebSocket handshake and on cross-origin
 * requests; only our own origin may talk to us. Non-browser clients (tests,
 * scripts) send none and must still present the token.
 */
export function isAllowedOrigin(originHeader: string | undefined, port: number): boolean {
  if (originHeader === undefined) return true;
  const origin = originHeader.trim().toLowerCase();
  return origin === `http://${LOOPBACK_HOST}:${port}` || origin === `http://localhost:${port}`;
}

/** Constant-time token comparison (hashing first makes the lengths equal). */
export function tokenMatches(presented: string | null | undefined, expected: string): boolean {
  if (typeof presented !== 'string' || presented.length === 0) return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** `Authorization: Bearer <token>` → the token, else null. */
export function bearerToken(authorization: string | undefined): string | null {
  if (authorization === undefined) return null;
  const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
  return match?.[1] ?? null;
}
