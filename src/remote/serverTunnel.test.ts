/**
 * A server worker behind the connector (its server mode), on one machine: a
 * real HTTP server started by GateLab's Python connector on a port the
 * connector picked, reached through the lab's loopback tunnel (one
 * WebSocket from the connector per connection) over the real control
 * endpoint; folders uploaded by content; a lost connection is a crash the
 * supervisor restarts, on the same lab-side port. And the messages: bad
 * input gets clear errors, and a stream can only ever reach the server's own
 * port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { SupervisedServer } from '../processes/supervisedServer';
import { WorkerRegistry } from '../processes/workerRegistry';
import { SERVER_PORT_PLACEHOLDER } from '../processes/serverProcess';
import { connectorMessageSchema, labMessageSchema, putHeaderSchema } from './connectorMessages';
import { controlHub, type ControlEndpointOptions } from './controlHub';
import { CONNECTOR_BOOTSTRAP, connectorEnvironment } from './connectorEnvironment';
import { remoteServerHost } from './remoteServerHost';
import { connectorPython } from './testing/connectorPython';
import { localServerConnector } from './testing/localConnectorLauncher';

const healthServer = fileURLToPath(new URL('../processes/testing/healthServer.mjs', import.meta.url));
const python = connectorPython() ?? 'python3';
if (connectorPython() === null) console.warn('serverTunnel.test.ts: the connector tests skipped: no Python with its packages (npm run setup:ray)');
const control: ControlEndpointOptions = { bind: '127.0.0.1', port: 0 };
const started: ChildProcess[] = [];
/** Scratch folders of connectors this file kills (a killed connector cannot remove its own). */
const scratches: string[] = [];

afterAll(async () => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await controlHub(control).close();
  await Promise.all(scratches.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A connector started by hand, its socket driven by the test (what the lab would send, and what it must not). */
async function rawConnector(args: string[], mode: 'jsonl' | 'server') {
  const expected = await controlHub(control).expect('raw');
  const env = connectorEnvironment(expected, { kind: 'process', command: process.execPath, args, env: {} }, {}, mode);
  const child = spawn(python, ['-c', CONNECTOR_BOOTSTRAP], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'], shell: false });
  started.push(child);
  const stderr: string[] = [];
  if (child.stderr) createInterface({ input: child.stderr }).on('line', (line) => stderr.push(line));
  const socket: WebSocket = await expected.connected;
  const messages: unknown[] = [];
  const waiters: Array<() => void> = [];
  socket.on('message', (data) => {
    messages.push(JSON.parse(data.toString()));
    for (const wake of waiters.splice(0)) wake();
  });
  /** The first message (from the start) that matches; waits for it. */
  const next = async (match: (m: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> => {
    for (;;) {
      const found = (messages as Array<Record<string, unknown>>).find(match);
      if (found) return found;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  const send = (message: unknown) => socket.send(JSON.stringify(message));
  return { child, socket, next, send, stderr };
}

describe('the messages', () => {
  it('refuse bad input with clear errors, and `open` names no host or port', () => {
    expect(labMessageSchema.safeParse({ type: 'open', launch: 'probe-stream-3-ab12', token: 't' }).success).toBe(true);
    const aimed = labMessageSchema.safeParse({ type: 'open', launch: 'x', token: 't', port: 22 });
    expect(aimed.success).toBe(false);
    expect(aimed.error?.issues[0]?.message).toMatch(/[Uu]nrecognized key.*port/);
    expect(labMessageSchema.safeParse({ type: 'open', launch: 'x', token: 't', host: '10.0.0.1' }).success).toBe(false);
    expect(labMessageSchema.safeParse({ type: 'open', launch: '../x', token: 't' }).success).toBe(false);
    expect(labMessageSchema.safeParse({ type: 'read', ref: 1, path: '../outside' }).success).toBe(false);
    expect(putHeaderSchema.safeParse({ type: 'put', ref: 1, path: 'a/b', sha256: 'nope' }).success).toBe(false);
    expect(connectorMessageSchema.safeParse({ type: 'hello', pid: 1, host: 'h', scratch: '/s', port: 70_000 }).success).toBe(false);
  });

  it('a server command must name the port the connector picks', () => {
    const expected = { url: 'ws://127.0.0.1:1/workers/x', token: 't' };
    expect(() => connectorEnvironment(expected, { kind: 'process', command: 'vllm', args: ['--port', '8000'], env: {} }, {}, 'server')).toThrow(
      `a server worker's command must name its port as ${SERVER_PORT_PLACEHOLDER}`,
    );
  });
});

describe.skipIf(connectorPython() === null)('the connector in server mode', () => {
  it('joins a stream to its own server port only, whatever an `open` says; a JSON-lines worker has no streams', { timeout: 120_000 }, async () => {
    const server = await rawConnector([healthServer, SERVER_PORT_PLACEHOLDER, '0'], 'server');
    const hello = await server.next((m) => m.type === 'hello');
    expect(hello.port).toBeTypeOf('number');
    await server.next((m) => m.type === 'log' && /listening on/.test(String(m.line)));
    // An `open` that names another port (the lab's schema refuses it; the connector ignores it) still reaches the server.
    const stream = await controlHub(control).expect('stream');
    server.send({ type: 'open', launch: stream.id, token: stream.token, port: 22, host: '10.0.0.1' });
    const ws = await stream.connected;
    const reply: Buffer[] = [];
    const closed = new Promise<void>((resolve) => ws.on('close', () => resolve()));
    ws.on('message', (data: Buffer) => reply.push(data));
    ws.send(Buffer.from('GET /health HTTP/1.0\r\nHost: x\r\n\r\n'));
    await closed;
    expect(Buffer.concat(reply).toString()).toMatch(/^HTTP\/1\.[01] 200/);
    server.socket.close();
    await new Promise<void>((resolve) => (server.child.exitCode !== null ? resolve() : server.child.once('exit', () => resolve())));

    const worker = await rawConnector([healthServer, '1'], 'jsonl');
    scratches.push(String((await worker.next((m) => m.type === 'hello')).scratch));
    worker.send({ type: 'open', launch: 'nothing', token: 'x' });
    await worker.next((m) => m.type === 'log' && /no stream opened \(this worker is not a server\)/.test(String(m.line)));
    worker.child.kill('SIGKILL');
  });
});

describe.skipIf(connectorPython() === null)('a supervised server behind the connector', () => {
  it('is reached through the lab-side port, gets folders by content, and restarts on the same port after a lost connection', { timeout: 180_000 }, async () => {
    const connectors: number[] = [];
    const host = remoteServerHost(localServerConnector({ python, control, onConnector: (pid) => connectors.push(pid) }));
    const port = await host.port();
    const registry = new WorkerRegistry();
    let setups = 0;
    let secondSetup: () => void = () => undefined;
    const restarted = new Promise<void>((resolve) => (secondSetup = resolve));
    const server = new SupervisedServer({
      name: 'tunnelled',
      command: process.execPath,
      args: () => [healthServer, SERVER_PORT_PLACEHOLDER, '200'],
      launch: host.launch,
      healthUrl: `http://127.0.0.1:${port}/health`,
      startTimeoutMs: 60_000,
      restartDelayMs: 10,
      registry,
      setup: async () => {
        setups += 1;
        if (setups === 2) secondSetup();
      },
    });
    const folder = await mkdtemp(path.join(tmpdir(), 'gatelab-folder-'));
    try {
      await server.start();
      const first = await (await fetch(`http://127.0.0.1:${port}/health`)).text();
      expect(Number(first)).toBeGreaterThan(0);
      // Not a local child: the panel says where it runs and has no pid of this host.
      expect(server.pid).toBeUndefined();
      expect(registry.list().find((w) => w.name === 'tunnelled')?.command).toMatch(/^local connector: /);

      await writeFile(path.join(folder, 'adapter_model.safetensors'), Buffer.from([1, 2, 3, 250]));
      await writeFile(path.join(folder, 'adapter_config.json'), '{"r": 1}\n');
      const there = await host.placeFolder(folder);
      scratches.push(path.dirname(path.dirname(there)));
      expect(there).not.toBe(folder);
      // (One machine: the test can look at what the node received.)
      expect([...(await readFile(path.join(there, 'adapter_model.safetensors')))]).toEqual([1, 2, 3, 250]);
      expect(await readFile(path.join(there, 'adapter_config.json'), 'utf8')).toBe('{"r": 1}\n');

      // A lost connection (the connector killed) is a crash: the supervisor starts another launch, reached on the same port.
      process.kill(connectors[0] as number, 'SIGKILL');
      await restarted;
      await server.ready();
      const second = await (await fetch(`http://127.0.0.1:${port}/health`)).text();
      expect(second).not.toBe(first);
      expect(connectors).toHaveLength(2);
    } finally {
      await server.shutdown(5_000);
      await host.close();
      await rm(folder, { recursive: true, force: true });
    }
    // Stopped: nothing answers on the lab-side port.
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
  });
});
