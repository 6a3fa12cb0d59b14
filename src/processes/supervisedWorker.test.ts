import { getPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { echoProtocol } from './testing/echoProtocol';
import { SupervisedWorker, type WorkerState } from './supervisedWorker';
import { sourceWorkerEntry, workerEntry, type WorkerEntry } from './workerEntry';
import { WorkerCallError } from './workerMessages';

const echoSource = fileURLToPath(new URL('./testing/echoWorker.ts', import.meta.url));
const workers: Array<SupervisedWorker<typeof echoProtocol>> = [];

function echoWorker(options: { entry?: () => WorkerEntry; env?: Record<string, string>; nice?: number; maxRestarts?: number; states?: WorkerState[] } = {}) {
  const worker = new SupervisedWorker({
    name: 'echo',
    protocol: echoProtocol,
    entry: options.entry ?? (() => sourceWorkerEntry(echoSource)),
    ...(options.env ? { env: options.env } : {}),
    ...(options.nice !== undefined ? { nice: options.nice } : {}),
    maxRestarts: options.maxRestarts ?? 3,
    restartDelayMs: 50,
    onStateChange: (state) => options.states?.push(state),
  });
  workers.push(worker);
  return worker;
}

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.shutdown(2000)));
});

async function expectCode(promise: Promise<unknown>, code: string): Promise<WorkerCallError> {
  const error = await promise.then(
    () => {
      throw new Error(`expected a ${code} error`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkerCallError);
  expect((error as WorkerCallError).code).toBe(code);
  return error as WorkerCallError;
}

describe('SupervisedWorker over Node IPC', () => {
  it('answers typed calls and streams progress', async () => {
    const worker = echoWorker();
    const reply = await worker.call('echo', { text: 'hi' });
    expect(reply.text).toBe('hi');
    expect(reply.pid).toBe(worker.pid);
    const seen: number[] = [];
    await worker.call('count', { to: 3 }, { onProgress: (p) => seen.push(p.n) });
    expect(seen).toEqual([1, 2, 3]);
  });

  it('passes worker errors through, and rejects invalid params and results', async () => {
    const worker = echoWorker();
    const failed = await expectCode(worker.call('fail', {}), 'no_luck');
    expect(failed.message).toMatch(/on purpose/);
    await expectCode(worker.call('echo', { text: 3 } as never), 'bad_request');
    await expectCode(worker.call('lie', {}), 'bad_response');
  });

  it('times a call out without killing the worker', async () => {
    const worker = echoWorker();
    await expectCode(worker.call('sleep', { ms: 1000 }, { timeoutMs: 50 }), 'timeout');
    expect((await worker.call('echo', { text: 'still here' })).text).toBe('still here');
  });

  it('starts the process at the nice value asked for, again after a restart', async () => {
    const worker = echoWorker({ nice: 7 });
    await worker.start();
    const first = worker.pid as number;
    expect(getPriority(first)).toBe(7);
    await expectCode(worker.call('crash', { code: 3 }), 'crashed');
    const { pid } = await worker.call('echo', { text: 'back' });
    expect(pid).not.toBe(first);
    expect(getPriority(pid)).toBe(7);
    // Without the option the worker keeps its parent's priority.
    const plain = echoWorker();
    await plain.start();
    expect(getPriority(plain.pid as number)).toBe(getPriority());
  });

  it('fails in-flight calls on a crash, restarts, and serves again', async () => {
    const states: WorkerState[] = [];
    const worker = echoWorker({ states });
    const firstPid = (await worker.call('echo', { text: 'a' })).pid;
    const sleeping = worker.call('sleep', { ms: 5000 });
    const crash = await expectCode(worker.call('crash', { code: 3 }), 'crashed');
    expect(crash.message).toMatch(/exited with code 3/);
    expect(crash.message).toMatch(/about to crash on purpose/);
    await expectCode(sleeping, 'crashed');
    const after = await worker.call('echo', { text: 'b' });
    expect(after.pid).not.toBe(firstPid);
    expect(states).toContain('restarting');
    expect(worker.state).toBe('running');
  });

  it('gives up after too many crashes and stays failed', async () => {
    const worker = echoWorker({ env: { ECHO_WORKER_CRASH_AT_START: '1' }, maxRestarts: 2 });
    await expectCode(worker.start(), 'start_failed');
    // However long the restarts take on a busy machine: only the state decides.
    while (worker.state !== 'failed') await new Promise((resolve) => setTimeout(resolve, 50));
    expect(worker.state).toBe('failed');
    const error = await expectCode(worker.call('echo', { text: 'x' }), 'not_running');
    expect(error.message).toMatch(/exited with code 7/);
  });

  it('reports a program that cannot be started', async () => {
    const worker = echoWorker({ entry: () => ({ kind: 'node', command: '/nonexistent/node', args: [], env: {} }), maxRestarts: 0 });
    const error = await expectCode(worker.start(), 'start_failed');
    expect(error.message).toMatch(/ENOENT/);
  });

  it('shuts down cleanly and refuses calls afterwards', async () => {
    const worker = echoWorker();
    const { pid } = await worker.call('echo', { text: 'a' });
    await worker.shutdown(2000);
    expect(() => process.kill(pid, 0)).toThrow();
    await expectCode(worker.call('echo', { text: 'b' }), 'not_running');
  });
});

describe('SupervisedWorker over JSON lines (the path for Python workers)', () => {
  it('speaks the same protocol on stdin/stdout', async () => {
    const worker = echoWorker({
      entry: () => {
        const node = sourceWorkerEntry(echoSource);
        if (node.kind !== 'node') throw new Error('unexpected entry');
        return { kind: 'process', command: node.command, args: node.args, env: {} };
      },
    });
    expect((await worker.call('echo', { text: 'lines' })).text).toBe('lines');
    const seen: number[] = [];
    await worker.call('count', { to: 2 }, { onProgress: (p) => seen.push(p.n) });
    expect(seen).toEqual([1, 2]);
    await expectCode(worker.call('crash', { code: 5 }), 'crashed');
  });
});

describe('workerEntry', () => {
  it('starts sources with the tsx loader', () => {
    const entry = workerEntry('engine');
    expect(entry.kind).toBe('node');
    if (entry.kind !== 'node') return;
    expect(entry.args[0]).toBe('--import');
    expect(entry.args[1]).toMatch(/tsx\/dist\/loader\.mjs$/);
    expect(entry.args[2]).toMatch(/src\/backends\/embedded\/engine\/engineWorker\.ts$/);
  });

  it('uses dist/workers/<name>.js when built, and utilityProcess inside Electron', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { pathToFileURL } = await import('node:url');
    const root = mkdtempSync(join(tmpdir(), 'dist-'));
    try {
      const selfUrl = pathToFileURL(join(root, 'lab', 'cli.js')).href;
      expect(() => workerEntry('engine', { selfUrl, electronVersion: undefined, utilityAvailable: false })).toThrow(/missing/);
      mkdirSync(join(root, 'workers'));
      writeFileSync(join(root, 'workers', 'engine.js'), '');
      expect(workerEntry('engine', { selfUrl, electronVersion: undefined, utilityAvailable: false })).toEqual({
        kind: 'node',
        command: process.execPath,
        args: [join(root, 'workers', 'engine.js')],
        env: {},
      });
      expect(workerEntry('engine', { selfUrl, electronVersion: '39.0.0', utilityAvailable: true })).toEqual({
        kind: 'utility',
        modulePath: join(root, 'workers', 'engine.js'),
        args: [],
      });
      expect(workerEntry('engine', { selfUrl, electronVersion: '39.0.0', utilityAvailable: false })).toMatchObject({
        kind: 'node',
        env: { ELECTRON_RUN_AS_NODE: '1' },
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
