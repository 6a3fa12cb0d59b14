import { describe, expect, test } from 'vitest';
import { bearerToken, createLaunchToken, isAllowedHost, isAllowedOrigin, tokenMatches } from './browserGuards';

describe('request guards', () => {
  test('Host: only our loopback names with our port', () => {
    expect(isAllowedHost('127.0.0.1:4000', 4000)).toBe(true);
    expect(isAllowedHost('LOCALHOST:4000', 4000)).toBe(true);
    expect(isAllowedHost('127.0.0.1:4001', 4000)).toBe(false);
    expect(isAllowedHost('127.0.0.1', 4000)).toBe(false);
    expect(isAllowedHost('evil.example:4000', 4000)).toBe(false);
    expect(isAllowedHost('127.0.0.1.evil.example:4000', 4000)).toBe(false);
    expect(isAllowedHost('[::1]:4000', 4000)).toBe(false);
    expect(isAllowedHost(undefined, 4000)).toBe(false);
  });

  test('Origin: absent (non-browser) or exactly ours', () => {
    expect(isAllowedOrigin(undefined, 4000)).toBe(true);
    expect(isAllowedOrigin('http://127.0.0.1:4000', 4000)).toBe(true);
    expect(isAllowedOrigin('http://localhost:4000', 4000)).toBe(true);
    expect(isAllowedOrigin('null', 4000)).toBe(false);
    expect(isAllowedOrigin('https://127.0.0.1:4000', 4000)).toBe(false);
    expect(isAllowedOrigin('http://evil.example', 4000)).toBe(false);
    expect(isAllowedOrigin('http://127.0.0.1:4001', 4000)).toBe(false);
  });

  test('tokens: fresh per launch, compared exactly', () => {
    const a = createLaunchToken();
    const b = createLaunchToken();
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(tokenMatches(a, a)).toBe(true);
    expect(tokenMatches(b, a)).toBe(false);
    expect(tokenMatches(a.slice(0, 63), a)).toBe(false);
    expect(tokenMatches('', a)).toBe(false);
    expect(tokenMatches(null, a)).toBe(false);
    expect(bearerToken(`Bearer ${a}`)).toBe(a);
    expect(bearerToken(a)).toBe(null);
    expect(bearerToken(undefined)).toBe(null);
  });
});
