/**
 * The transport that crosses machines, on one machine: the supervisor's echo
 * worker runs under GateLab's Python connector, which dials the lab's control
 * endpoint over WebSocket with the launch's token. The same protocol, the
 * same errors, a lost connection is a crash, files move by content.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { echoProtocol } from '../processes/testing/echoProtocol';
import { SupervisedWorker } from '../processes/supervisedWorker';
import { sourceWorkerEntry } from '../processes/workerEntry';
import { WorkerCallError } from '../processes/workerMessages';
import { WorkerRegistry } from '../processes/workerRegistry';
import { controlHub, type ControlEndpointOptions } from './controlHub';
import { CONNECTOR_PACKAGES } from './connectorEnvironment';
import type { RemoteCallHooks } from './remoteWorkerProcess';
import { connectorPython } from './testing/connectorPython';
import { localConnectorLauncher, type LocalConnectorLaunch } from './testing/localConnectorLauncher';

const echoSource = fileURLToPath(new URL('../processes/testing/echoWorker.ts', import.meta.url));
const python = connectorPython() ?? 'python3';
if (connectorPython() === null) console.warn("remoteTransport.test.ts skipped: no Python with the connector's packages (npm run setup:ray)");
const control: ControlEndpointOptions = { bind: '127.0.0.1', port: 0 };
const workers: Array<SupervisedWorker<typeof echoProtocol>> = [];
const registry = new WorkerRegistry();

function remoteEcho(launch: Partial<LocalConnectorLaunch> = {}, maxRestarts = 2, env?: Record<string, string>) {
  const worker = new SupervisedWorker({
    ...(env ? { env } : {}),
    name: 'echo',
    protocol: echoProtocol,
    entry: () => sourceWorkerEntry(echoSource),
    launch: localConnectorLauncher({ python, control, ...launch }),
    startTimeoutMs: 60_000,
    maxRestarts,
    restartDelayMs: 50,
    registry,
  });
  workers.push(worker);
  return worker;
}

async function errorOf(promise: Promise<unknown>): Promise<WorkerCallError> {
  const error = await promise.then(
    () => new Error('expected an error'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkerCallError);
  return error as WorkerCallError;
}

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.shutdown(3000)));
});
afterAll(async () => {
  await controlHub(control).close();
});

describe.skipIf(connectorPython() === null)('a worker behind the connector', () => {
  it('answers the same protocol, streams progress, and gets the same errors for bad input', { timeout: 120_000 }, async () => {
    const worker = remoteEcho();
    expect((await worker.call('echo', { text: 'über the wire' })).text).toBe('über the wire');
    const seen: number[] = [];
    await worker.call('count', { to: 3 }, { onProgress: (p) => seen.push(p.n) });
    expect(seen).toEqual([1, 2, 3]);
    expect((await errorOf(worker.call('echo', { text: 3 } as never))).code).toBe('bad_request');
    expect((await errorOf(worker.call('fail', {}))).code).toBe('no_luck');
    expect((await errorOf(worker.call('lie', {}))).code).toBe('bad_response');
    // The workers panel lists it with where it runs; no local pid (it is another machine's).
    const listed = registry.list().find((w) => w.name === 'echo');
    expect(listed?.command).toMatch(/^local connector: node echoWorker\.ts$/);
    expect(listed?.pid).toBeNull();
  });

  it('treats a worker crash and a lost connection as crashes, and restarts', { timeout: 180_000 }, async () => {
    const connectors: number[] = [];
    const worker = remoteEcho({ onConnector: (pid) => connectors.push(pid) });
    const first = await worker.call('echo', { text: 'a' });
    expect((await errorOf(worker.call('crash', { code: 3 }))).code).toBe('crashed');
    const second = await worker.call('echo', { text: 'b' });
    expect(second.pid).not.toBe(first.pid);
    // The connection drops mid-call (its connector is killed): the call is a crash, then a new launch serves.
    const sleeping = worker.call('sleep', { ms: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    process.kill(connectors.at(-1) as number, 'SIGKILL');
    const lost = await errorOf(sleeping);
    expect(lost.code).toBe('crashed');
    expect((await worker.call('echo', { text: 'c' })).text).toBe('c');
    expect(connectors.length).toBe(3);
  });

  it('starts the worker at the nice value its placement asks for (the connector renices it)', { timeout: 60_000 }, async () => {
    const worker = remoteEcho({}, 0, { GATELAB_WORKER_NICE: '7' });
    const { pid } = await worker.call('echo', { text: 'nice' });
    // In this test the "remote" machine is this one, so the OS can be asked.
    expect(getPriority(pid)).toBe(7);
  });

  it('moves files by content through the hooks, checked on arrival', { timeout: 120_000 }, async () => {
    const bytes = Buffer.alloc(9 * 1024 * 1024 + 17);
    for (let i = 0; i < bytes.length; i += 1) bytes[i] = (i * 31 + 7) & 0xff;
    const readBack: Buffer[] = [];
    const refused: string[] = [];
    const hooks = (): RemoteCallHooks => ({
      async request(request, files) {
        if (request.method === 'echo') {
          await files.put('blobs/x.bin', bytes);
          readBack.push(await files.read('blobs/x.bin'));
          await files.read('../outside').catch((e: Error) => refused.push(e.message));
          await files.read('blobs/missing.bin').catch((e: Error) => refused.push(e.message));
        }
        return request;
      },
      async result(_request, result) {
        return result;
      },
    });
    const worker = remoteEcho({ hooks });
    await worker.call('echo', { text: 'files' });
    expect(readBack[0]?.equals(bytes)).toBe(true);
    expect(refused).toHaveLength(2);
    expect(refused[0]).toMatch(/not a path inside the scratch folder/);
    expect(refused[1]).toMatch(/missing\.bin/);
  });
});

describe.skipIf(connectorPython() === null)('the control endpoint', () => {
  it('refuses a wrong token, an unknown launch and a browser', { timeout: 60_000 }, async () => {
    const hub = controlHub(control);
    const expected = await hub.expect('probe-test');
    const status = (url: string, headers: Record<string, string>) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(url, { headers });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => {
          ws.close();
          resolve(101);
        });
        ws.on('error', () => undefined);
      });
    expect(await status(expected.url, { authorization: `Bearer ${'0'.repeat(64)}` })).toBe(401);
    expect(await status(expected.url.replace(/workers\/.*/, 'workers/nope'), { authorization: `Bearer ${expected.token}` })).toBe(404);
    expect(await status(expected.url, { authorization: `Bearer ${expected.token}`, origin: 'http://evil.example' })).toBe(403);
    expect(await status(expected.url, { authorization: `Bearer ${expected.token}` })).toBe(101);
    // Answered once: the same launch cannot be taken twice.
    expect(await status(expected.url, { authorization: `Bearer ${expected.token}` })).toBe(404);
  });

  it('a connector with the wrong token never becomes the worker', { timeout: 60_000 }, async () => {
    const worker = remoteEcho({ connectorEnv: (env) => ({ ...env, GATELAB_CONTROL_TOKEN: 'f'.repeat(64) }) }, 0);
    const error = await errorOf(worker.call('echo', { text: 'x' }));
    expect(error.message).toMatch(/refused the connection: HTTP 401/);
  });
});

it.skipIf(connectorPython() === null)(
  'the connector imports only the standard library, Ray and the packages the job installs, pinned as setup:ray pins them',
  () => {
    const source = fileURLToPath(new URL('./connector/gatelab_connector.py', import.meta.url));
    const imports = execFileSync(python, [
      '-c',
      `import ast,sys;t=ast.parse(open(sys.argv[1]).read());print(' '.join(sorted({(n.module if isinstance(n,ast.ImportFrom) else a.name).split('.')[0] for n in ast.walk(t) if isinstance(n,(ast.Import,ast.ImportFrom)) for a in (n.names if isinstance(n,ast.Import) else [n])})))`,
      source,
    ])
      .toString()
      .trim()
      .split(' ');
    const stdlib = execFileSync(python, ['-c', 'import sys;print(" ".join(sorted(sys.stdlib_module_names)))']).toString().trim().split(' ');
    // Ray is the node's own; the rest comes with the job (its runtime_env's pip list).
    expect(imports.filter((m) => !stdlib.includes(m))).toEqual(['aiohttp', 'ray']);
    expect(CONNECTOR_PACKAGES.map((p) => p.split('==')[0])).toEqual(['aiohttp']);
    const pinned = readFileSync(fileURLToPath(new URL('./connector/requirements.txt', import.meta.url)), 'utf8').split('\n');
    for (const requirement of CONNECTOR_PACKAGES) expect(pinned).toContain(requirement);
  },
);
