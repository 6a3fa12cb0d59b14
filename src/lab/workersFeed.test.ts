import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkersView } from '../contract';
import { readGpuMemory } from '../processes/gpuMemory';
import { WorkerRegistry } from '../processes/workerRegistry';
import { createLabEventBus } from './eventBus';
import { createWorkersFeed, LOG_TAIL_LINES } from './workersFeed';

let bin: string;
beforeAll(async () => {
  bin = await mkdtemp(path.join(tmpdir(), 'gatelab-feed-smi-'));
  const file = path.join(bin, 'nvidia-smi');
  await writeFile(file, '#!/bin/sh\nprintf "index, memory.used [MiB], memory.total [MiB]\\n0, 10 MiB, 81559 MiB\\n1, 40212 MiB, 81559 MiB\\n"\n');
  await chmod(file, 0o755);
});
afterAll(async () => {
  await rm(bin, { recursive: true, force: true });
});

describe('the workers feed', () => {
  it('gives a GPU worker its memory from nvidia-smi (a fake one on PATH) and a CPU worker none', async () => {
    const registry = new WorkerRegistry();
    const trainer = registry.register('trainer', { role: 'trainer', gpus: [1] });
    trainer.launched({ kind: 'process', command: 'python3', args: ['-m', 'gatelab_torch'], env: {} }, process.pid);
    trainer.state('running');
    registry.register('engine', { role: 'serving' });
    const events = createLabEventBus();
    const feed = createWorkersFeed({ registry, events, readGpu: () => readGpuMemory({ ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` }) });
    const view = WorkersView.parse(await feed.view());
    expect(view.gpuProblem).toBeNull();
    expect(view.workers[0]).toMatchObject({
      role: 'trainer',
      command: 'python3 -m gatelab_torch',
      pid: process.pid,
      gpus: [{ index: 1, memoryUsedMiB: 40212, memoryTotalMiB: 81559 }],
    });
    expect(view.workers[1]).toMatchObject({ role: 'serving', gpus: null, pid: null, nice: null, state: 'idle' });
    feed.close();
  });

  it('says why GPU memory is missing, and does not ask nvidia-smi when no worker has a GPU', async () => {
    const registry = new WorkerRegistry();
    let asked = 0;
    const readGpu = async () => {
      asked++;
      return readGpuMemory({ ...process.env, PATH: path.join(bin, 'empty') });
    };
    const feed = createWorkersFeed({ registry, events: createLabEventBus(), readGpu });
    registry.register('engine', { role: 'probe' });
    expect((await feed.view()).gpuProblem).toBeNull();
    expect(asked).toBe(0);
    registry.register('engine', { role: 'serving', gpus: [5] });
    const view = await feed.view();
    expect(asked).toBe(1);
    expect(view.gpuProblem).toMatch(/not on PATH/);
    expect(view.workers[1]!.gpus).toEqual([{ index: 5, memoryUsedMiB: null, memoryTotalMiB: null }]);
    feed.close();
  });

  it('sends one workers.changed per burst, with the newest log lines', async () => {
    const registry = new WorkerRegistry();
    const events = createLabEventBus();
    const seen: WorkersView[] = [];
    events.subscribe((name, payload) => {
      if (name === 'workers.changed') seen.push(payload as WorkersView);
    });
    const feed = createWorkersFeed({ registry, events, batchMs: 20 });
    const reporter = registry.register('engine', { role: 'serving' });
    for (let i = 0; i < 100; i++) reporter.log(`line ${i}`, 'stdout');
    await expect.poll(() => seen.length).toBe(1);
    const tail = seen[0]!.workers[0]!.logTail;
    expect(tail).toHaveLength(LOG_TAIL_LINES);
    expect(tail.at(-1)!.line).toBe('line 99');
    reporter.remove();
    await expect.poll(() => seen.length).toBe(2);
    expect(seen[1]!.workers).toEqual([]);
    feed.close();
  });
});
