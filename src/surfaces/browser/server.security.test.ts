import { request } from 'node:http';
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import { REPO_ASSETS_DIR } from '../../contract/testing/contractSuite';
import { createLabCore } from '../../lab/labCore';
import { RENDERER_CSP } from './contentSecurityPolicy';
import { startLabServer } from './server';
import type { LabServer } from './server';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP request, so the test controls every header (fetch forbids setting Host). */
function send(server: LabServer, options: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, method: options.method ?? 'GET', path: options.path, headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** Opens a WebSocket and reports how the handshake ended: 'open' or the HTTP status it was refused with. */
function tryWebSocket(url: string, headers: Record<string, string> = {}): Promise<'open' | number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.close();
      resolve('open');
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => resolve(0));
  });
}

describe('browser-mode server security', () => {
  let server: LabServer;
  let host: string;
  const call = (path: string, headers: Record<string, string>, body = '{}') =>
    send(server, { method: 'POST', path, headers: { 'Content-Type': 'application/json', ...headers }, body });

  beforeAll(async () => {
    const base = mkdtempSync(join(tmpdir(), 'gatelab-server-test-'));
    const rendererDir = join(base, 'renderer');
    mkdirSync(rendererDir);
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>GateLab</title>');
    mkdirSync(join(rendererDir, 'assets'));
    writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log(1)');
    writeFileSync(join(rendererDir, '..', 'secret.txt'), 'outside the renderer');
    const core = createLabCore({ assetsDir: REPO_ASSETS_DIR, version: '0.0.0-test', mode: 'browser' });
    server = await startLabServer({ handlers: core.handlers, events: core.events, rendererDir, maxBodyBytes: 64 * 1024 });
    host = `127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    await server.close();
  });

  test('it listens on 127.0.0.1 only, on a random free port', () => {
    expect(server.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`${server.origin}/?token=${server.token}`);
    expect(server.token).toMatch(/^[0-9a-f]{64}$/);
  });

  test('it is not reachable on another interface address', async () => {
    const { networkInterfaces } = await import('node:os');
    const other = Object.values(networkInterfaces())
      .flat()
      .find((nic) => nic !== undefined && nic.family === 'IPv4' && !nic.internal);
    if (other === undefined) return; // a machine with loopback only has nothing else to try
    const refused = await new Promise<boolean>((resolve) => {
      const req = request({ host: other.address, port: server.port, path: '/', timeout: 2000 }, () => resolve(false));
      req.on('error', () => resolve(true));
      req.on('timeout', () => {
        req.destroy();
        resolve(true);
      });
      req.end();
    });
    expect(refused).toBe(true);
  });

  test('a valid call with the token succeeds', async () => {
    const res = await call('/api/app.info', { Host: host, Authorization: `Bearer ${server.token}` });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ ok: true, result: { name: 'GateLab', mode: 'browser' } });
  });

  test('an API call without the token, or with a wrong one, is 401', async () => {
    const attempts: Record<string, string>[] = [{}, { Authorization: 'Bearer wrong' }, { Authorization: server.token }];
    for (const headers of attempts) {
      const res = await call('/api/app.info', { Host: host, ...headers });
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    }
  });

  test('the page without the token is 401; with it, it is served with the CSP', async () => {
    expect((await send(server, { path: '/', headers: { Host: host } })).status).toBe(401);
    expect((await send(server, { path: '/?token=nope', headers: { Host: host } })).status).toBe(401);
    const page = await send(server, { path: `/?token=${server.token}`, headers: { Host: host } });
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toBe(RENDERER_CSP);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(RENDERER_CSP).toContain("script-src 'self'");
  });

  test('a wrong Host header (DNS rebinding) is refused, even with the token', async () => {
    for (const badHost of ['evil.example', `evil.example:${server.port}`, `127.0.0.1:${server.port + 1}`, '127.0.0.1']) {
      const api = await call('/api/app.info', { Host: badHost, Authorization: `Bearer ${server.token}` });
      expect(api.status, badHost).toBe(403);
      const page = await send(server, { path: `/?token=${server.token}`, headers: { Host: badHost } });
      expect(page.status, badHost).toBe(403);
    }
    const ok = await call('/api/app.info', { Host: `localhost:${server.port}`, Authorization: `Bearer ${server.token}` });
    expect(ok.status).toBe(200);
  });

  test('a request from a foreign Origin is refused', async () => {
    const res = await call('/api/app.info', {
      Host: host,
      Origin: 'http://evil.example',
      Authorization: `Bearer ${server.token}`,
    });
    expect(res.status).toBe(403);
  });

  test('a WebSocket from a foreign Origin is refused; without the token it is 401; ours opens', async () => {
    const url = `ws://127.0.0.1:${server.port}/api/events?token=${server.token}`;
    expect(await tryWebSocket(url, { Origin: 'http://evil.example' })).toBe(403);
    expect(await tryWebSocket(url, { Origin: `http://127.0.0.1:${server.port + 1}` })).toBe(403);
    expect(await tryWebSocket(`ws://127.0.0.1:${server.port}/api/events`, { Origin: server.origin })).toBe(401);
    expect(await tryWebSocket(`ws://127.0.0.1:${server.port}/api/events?token=bad`, { Origin: server.origin })).toBe(401);
    expect(await tryWebSocket(url, { Host: 'evil.example', Origin: server.origin })).toBe(403);
    expect(await tryWebSocket(url, { Origin: server.origin })).toBe('open');
  });

  test('static files cannot escape the renderer folder', async () => {
    expect((await send(server, { path: '/assets/app.js', headers: { Host: host } })).status).toBe(200);
    for (const path of ['/../secret.txt', '/assets/..%2f..%2fsecret.txt', '/%2e%2e/secret.txt', '/assets/%00']) {
      const res = await send(server, { path, headers: { Host: host } });
      expect(res.status, path).toBe(404);
      expect(res.body).not.toContain('outside the renderer');
    }
  });

  test('bad requests get clear statuses: wrong method, wrong type, bad JSON, too large, unknown method', async () => {
    const auth = { Host: host, Authorization: `Bearer ${server.token}` };
    expect((await send(server, { path: '/api/app.info', headers: auth })).status).toBe(405);
    expect((await call('/api/app.info', { ...auth, 'Content-Type': 'text/plain' })).status).toBe(415);
    expect((await call('/api/app.info', auth, '{not json')).status).toBe(400);
    const huge = JSON.stringify({ files: [{ name: 'a.csv', text: 'x'.repeat(100 * 1024) }] });
    expect((await call('/api/runs.openFiles', auth, huge)).status).toBe(413);
    const unknown = await call('/api/runs.deleteEverything', auth);
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toMatchObject({ ok: false, error: { code: 'not-found' } });
    const invalid = await call('/api/runs.openReference', auth, '{"id":3}');
    expect(invalid.status).toBe(400);
  });

  test('a malformed CSV is 422 with its line and column', async () => {
    const res = await call(
      '/api/runs.openFiles',
      { Host: host, Authorization: `Bearer ${server.token}` },
      JSON.stringify({ files: [{ name: 'curve.csv', text: 'session,accept\n0,1\n' }] }),
    );
    expect(res.status).toBe(422);
    expect(JSON.parse(res.body)).toMatchObject({
      ok: false,
      error: { code: 'invalid-csv', details: { file: 'curve.csv', line: 1, column: 3, columnName: 'bold' } },
    });
  });
});
