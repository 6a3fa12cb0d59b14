import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkerLogFile } from './workerLogFile';

describe('WorkerLogFile', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'gatelab-worker-log-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('appends every line, creating its folder, and keeps what an earlier lab wrote', async () => {
    const file = path.join(dir, 'workers', 'probe.log');
    const first = new WorkerLogFile(file);
    first.write('one');
    first.write('two');
    first.close();
    const second = new WorkerLogFile(file);
    second.write('three');
    second.close();
    expect(await readFile(file, 'utf8')).toBe('one\ntwo\nthree\n');
  });

  it('is bounded: past its size it moves to .1 and starts again, never holding more than twice the bound', async () => {
    const file = path.join(dir, 'trainer.log');
    const log = new WorkerLogFile(file, 100);
    for (let i = 0; i < 50; i += 1) log.write(`line ${String(i).padStart(3, '0')} ${'x'.repeat(10)}`);
    log.close();
    const now = await readFile(file, 'utf8');
    const before = await readFile(`${file}.1`, 'utf8');
    expect((await stat(file)).size).toBeLessThanOrEqual(100);
    expect((await stat(`${file}.1`)).size).toBeLessThanOrEqual(100);
    expect(now.trim().split('\n').at(-1)).toBe(`line 049 ${'x'.repeat(10)}`);
    // The two files together end with the newest lines, in order, none missing between them.
    const lines = `${before}${now}`
      .trim()
      .split('\n')
      .map((l) => Number(l.slice(5, 8)));
    expect(lines).toEqual(lines.map((_, i) => 50 - lines.length + i));
  });

  it('gives up quietly when the file cannot be written, and says why', () => {
    const log = new WorkerLogFile(path.join(dir, 'missing-parent-is-a-file', 'x.log'));
    // A file where its folder should be: mkdir fails.
    const blocker = new WorkerLogFile(path.join(dir, 'missing-parent-is-a-file'));
    blocker.write('i am a file');
    blocker.close();
    log.write('lost');
    expect(log.problem).toMatch(/EEXIST|ENOTDIR/);
    log.write('also ignored');
  });
});
