import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { getPriority, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { echoProtocol } from './testing/echoProtocol';
import { SupervisedWorker } from './supervisedWorker';
import { holdRestartsFromEnv, releaseFileName } from './restartHold';
import { sourceWorkerEntry } from './workerEntry';
import { describeCommand, LOG_LINE_CHARS, LOG_LINES_KEPT, WorkerRegistry, type WorkerLifecycleEvent, type WorkerSnapshot } from './workerRegistry';

const echoSource = fileURLToPath(new URL('./testing/echoWorker.ts', import.meta.url));
const workers: Array<SupervisedWorker<typeof echoProtocol>> = [];

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.shutdown(2000)));
});

function supervised(registry: WorkerRegistry, options: { role?: string; gpus?: number[]; nice?: number } = {}) {
  const worker = new SupervisedWorker({
    name: 'echo',
    protocol: echoProtocol,
    entry: () => sourceWorkerEntry(echoSource),
    registry,
    ...(options.role ? { describe: { role: options.role, ...(options.gpus ? { gpus: options.gpus } : {}) } } : {}),
    ...(options.nice !== undefined ? { nice: options.nice } : {}),
    restartDelayMs: 10,
  });
  workers.push(worker);
  return worker;
}

const only = (registry: WorkerRegistry): WorkerSnapshot => {
  const list = registry.list();
  expect(list).toHaveLength(1);
  return list[0]!;
};

describe('the worker registry (unit)', () => {
  it('records launches, states, exits and a bounded log tail, on its own clock', () => {
    let now = 1000;
    const registry = new WorkerRegistry(() => now);
    let changes = 0;
    registry.onChange(() => changes++);
    const reporter = registry.register('trainer', { role: 'trainer', gpus: [1, 2] });
    expect(only(registry)).toMatchObject({ id: 'w1', role: 'trainer', name: 'trainer', state: 'idle', pid: null, gpus: [1, 2], restarts: 0 });
    now = 2000;
    reporter.launched({ kind: 'process', command: '/usr/bin/python3', args: ['-m', 'gatelab_trainer', '--api-key', 'secret'], env: {} }, 4242);
    reporter.state('running');
    expect(only(registry)).toMatchObject({
      kind: 'process',
      command: 'python3 -m gatelab_trainer',
      pid: 4242,
      startedAt: 2000,
      state: 'running',
      stateSince: 2000,
    });
    now = 3000;
    reporter.exited('worker trainer was killed by SIGKILL', true);
    reporter.state('restarting', 'worker trainer was killed by SIGKILL');
    expect(only(registry)).toMatchObject({
      pid: null,
      startedAt: null,
      restarts: 1,
      state: 'restarting',
      detail: 'worker trainer was killed by SIGKILL',
      lastExit: { at: 3000, reason: 'worker trainer was killed by SIGKILL' },
    });
    for (let i = 0; i < LOG_LINES_KEPT + 5; i++) reporter.log(`line ${i}`, 'stderr');
    reporter.log('x'.repeat(LOG_LINE_CHARS + 10), 'stdout');
    const { log } = only(registry);
    // Each stream keeps its own LOG_LINES_KEPT: the one stdout line does not push a stderr line out.
    expect(log).toHaveLength(LOG_LINES_KEPT + 1);
    expect(log[0]!.line).toBe('line 5');
    expect(log.at(-1)!.line).toHaveLength(LOG_LINE_CHARS + 1);
    expect(log.at(-1)!.stream).toBe('stdout');
    expect(changes).toBeGreaterThan(LOG_LINES_KEPT);
    reporter.remove();
    expect(registry.list()).toEqual([]);
  });

  it('keeps the last stderr lines however much the worker prints on stdout, in the order written', () => {
    const registry = new WorkerRegistry();
    const reporter = registry.register('serving-engine', { role: 'serving' });
    reporter.log('fatal: out of memory', 'stderr');
    for (let i = 0; i < 3 * LOG_LINES_KEPT; i++) reporter.log(`GET /health 200 (${i})`, 'stdout');
    reporter.log('last words', 'stderr');
    const { log } = only(registry);
    expect(log.filter((l) => l.stream === 'stdout')).toHaveLength(LOG_LINES_KEPT);
    expect(log[0]!.line).toBe('fatal: out of memory');
    expect(log[1]!.line).toBe(`GET /health 200 (${2 * LOG_LINES_KEPT})`);
    expect(log.at(-1)!.line).toBe('last words');
    expect(log.map((l) => l.seq)).toEqual([...log.map((l) => l.seq)].sort((a, b) => a - b));
  });

  it('tells its lifecycle listeners of each exit, with the last stderr lines, and of the restart after it', () => {
    const registry = new WorkerRegistry();
    const events: WorkerLifecycleEvent[] = [];
    registry.onLifecycle((e) => events.push(e));
    const reporter = registry.register('engine', { role: 'probe' });
    reporter.launched({ kind: 'node', command: '/usr/bin/node', args: ['/repo/dist/workers/engine.js'], env: {} }, 100);
    for (let i = 0; i < 8; i++) reporter.log(`stderr ${i}`, 'stderr');
    reporter.log('on stdout', 'stdout');
    reporter.exited('worker engine was killed by SIGKILL', true);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      kind: 'exited',
      pid: 100,
      reason: 'worker engine was killed by SIGKILL',
      restarting: true,
      stderrTail: ['stderr 3', 'stderr 4', 'stderr 5', 'stderr 6', 'stderr 7'],
    });
    reporter.launched({ kind: 'node', command: '/usr/bin/node', args: ['/repo/dist/workers/engine.js'], env: {} }, 101);
    expect(events[1]).toMatchObject({ kind: 'restarted', worker: { role: 'probe', pid: 101, restarts: 1 } });
    // Only a launch after a crash is a restart.
    reporter.launched({ kind: 'node', command: '/usr/bin/node', args: ['/repo/dist/workers/engine.js'], env: {} }, 102);
    expect(events).toHaveLength(2);
    reporter.exited('worker engine exited with code 1', false);
    expect(events[2]).toMatchObject({ kind: 'exited', pid: 102, restarting: false });
  });

  it("appends the whole output, each start and each exit to the worker's log file", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gatelab-registry-log-'));
    try {
      const logFile = path.join(dir, 'workers', 'trainer.log');
      const registry = new WorkerRegistry(() => Date.parse('2026-01-02T03:04:05.000Z'));
      const reporter = registry.register('trainer', { role: 'trainer', logFile });
      reporter.launched({ kind: 'process', command: '/venv/bin/python', args: ['-m', 'gatelab_torch', '--token', 'secret'], env: {} }, 7);
      for (let i = 0; i < LOG_LINES_KEPT + 10; i++) reporter.log(`step ${i}`, 'stderr');
      reporter.exited('worker trainer exited with code 1', true);
      reporter.remove();
      const lines = (await readFile(logFile, 'utf8')).trim().split('\n');
      expect(lines[0]).toBe('--- 2026-01-02T03:04:05.000Z trainer: started pid 7: python -m gatelab_torch ---');
      expect(lines[1]).toBe('2026-01-02T03:04:05.000Z stderr step 0');
      // More than the tail keeps: every line.
      expect(lines).toHaveLength(LOG_LINES_KEPT + 12);
      expect(lines.at(-1)).toBe('--- 2026-01-02T03:04:05.000Z trainer: worker trainer exited with code 1; restarting ---');
      expect(lines.join('\n')).not.toContain('secret');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names the program and its script or module, never the other arguments', () => {
    expect(
      describeCommand({
        kind: 'node',
        command: '/usr/bin/node',
        args: ['--import', 'file:///x/tsx/dist/loader.mjs', '/repo/src/backends/embedded/engine/engineWorker.ts'],
        env: {},
      }),
    ).toBe('node engineWorker.ts');
    expect(describeCommand({ kind: 'node', command: '/usr/bin/node', args: ['/repo/dist/workers/trainer.js'], env: {} })).toBe('node trainer.js');
    expect(describeCommand({ kind: 'utility', modulePath: '/app/dist/workers/engine.js', args: [] })).toBe('utilityProcess engine.js');
    expect(describeCommand({ kind: 'process', command: '/opt/venv/bin/vllm', args: ['serve', '/models/qwen', '--api-key', 'k'], env: {} })).toBe('vllm serve');
    expect(describeCommand({ kind: 'process', command: 'python3', args: ['/repo/src/backends/torch/trainer.py', '--token', 't'], env: {} })).toBe(
      'python3 trainer.py',
    );
    expect(describeCommand({ kind: 'process', command: 'python3', args: ['--token', 't'], env: {} })).toBe('python3');
  });
});

describe('SupervisedWorker reports into the registry (real processes)', () => {
  it('lists a running worker with its pid, role, command and the nice value the OS reports', async () => {
    const registry = new WorkerRegistry();
    const worker = supervised(registry, { role: 'probe', nice: 5 });
    await worker.start();
    const w = only(registry);
    expect(w).toMatchObject({
      role: 'probe',
      name: 'echo',
      kind: 'node',
      command: 'node echoWorker.ts',
      state: 'running',
      pid: worker.pid,
      gpus: null,
      restarts: 0,
    });
    expect(w.nice).toBe(getPriority(worker.pid!));
    expect(w.nice).toBe(5);
    expect(w.startedAt).not.toBeNull();
    await worker.shutdown(2000);
    expect(registry.list()).toEqual([]);
  });

  it('shows a crashed worker as restarting while its restart is held, then running again with a new pid', async () => {
    const registry = new WorkerRegistry();
    let release: () => void = () => undefined;
    const held: WorkerSnapshot[] = [];
    registry.holdRestarts((w) => {
      held.push(w);
      return new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    const exits: Array<{ pid: number | null; stderrTail: readonly string[] }> = [];
    registry.onLifecycle((e) => {
      if (e.kind === 'exited') exits.push({ pid: e.pid, stderrTail: e.stderrTail });
    });
    const worker = supervised(registry, { role: 'serving' });
    await worker.start();
    const first = worker.pid!;
    await worker.call('crash', { code: 3 }).catch(() => undefined);
    // The hook is the barrier: once it is called, the restart waits for it.
    await expect.poll(() => held.length).toBe(1);
    const during = only(registry);
    expect(during).toMatchObject({ state: 'restarting', pid: null, restarts: 1, lastExit: { reason: 'worker echo exited with code 3' } });
    // The exit is reported once the process's output has been read to its end: its last words are in the tail.
    expect(only(registry).log.map((l) => l.line)).toContain('about to crash on purpose');
    expect(exits).toEqual([{ pid: first, stderrTail: ['about to crash on purpose'] }]);
    const back = worker.call('echo', { text: 'back' });
    release();
    const { pid } = await back;
    expect(pid).not.toBe(first);
    expect(only(registry)).toMatchObject({ state: 'running', pid, restarts: 1 });
  });

  it('a worker shut down while its restart is held leaves the list and does not restart', async () => {
    const registry = new WorkerRegistry();
    let heldCalls = 0;
    registry.holdRestarts(() => {
      heldCalls++;
      return new Promise<void>(() => undefined); // never released
    });
    const worker = supervised(registry, { role: 'trainer', gpus: [0] });
    await worker.start();
    await worker.call('crash', { code: 1 }).catch(() => undefined);
    await expect.poll(() => heldCalls).toBe(1);
    expect(only(registry).gpus).toEqual([0]);
    await worker.shutdown(2000);
    expect(registry.list()).toEqual([]);
    expect(worker.state).toBe('stopped');
  });
});

describe('the restart barrier from the environment (GATELAB_TEST_HOLD_RESTARTS)', () => {
  it('holds a restart until its release file exists, and is off without the variable', async () => {
    expect(holdRestartsFromEnv(new WorkerRegistry(), {})).toBe(false);
    const dir = await mkdtemp(path.join(tmpdir(), 'gatelab-hold-'));
    try {
      const registry = new WorkerRegistry();
      expect(holdRestartsFromEnv(registry, { GATELAB_TEST_HOLD_RESTARTS: dir }, 10)).toBe(true);
      const worker = supervised(registry, { role: 'probe' });
      await worker.start();
      await worker.call('crash', { code: 2 }).catch(() => undefined);
      await expect.poll(() => only(registry).state).toBe('restarting');
      const back = worker.call('echo', { text: 'back' });
      await writeFile(path.join(dir, releaseFileName('probe', 1)), '');
      await back;
      expect(only(registry)).toMatchObject({ state: 'running', restarts: 1 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
