import { spawn } from 'node:child_process';
import { appendFile, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppendOnlyJournal, JournalCorruptError, readJournal } from './appendOnlyJournal';
import { RunJournal, journalFile } from './runJournal';
import { readServingPointer, writeServingPointer } from './servingPointer';

const lineSchema = z.strictObject({ n: z.int() });
const tmp = () => mkdtemp(path.join(tmpdir(), 'gatelab-journal-'));

describe('append-only journal', () => {
  it('drops a torn last line on read and cuts it off before the next append', async () => {
    const file = path.join(await tmp(), 'j.jsonl');
    await writeFile(file, '{"n":0}\n{"n":1}\n{"n":');
    const { journal, events, droppedTornLine } = await AppendOnlyJournal.open(file, lineSchema);
    expect(events).toEqual([{ n: 0 }, { n: 1 }]);
    expect(droppedTornLine).toBe(true);
    await journal.append({ n: 2 });
    await journal.close();
    expect(await readFile(file, 'utf8')).toBe('{"n":0}\n{"n":1}\n{"n":2}\n');
  });

  it('fails closed on a damaged line that is not the last', async () => {
    const file = path.join(await tmp(), 'j.jsonl');
    await writeFile(file, '{"n":0}\n{"n":oops}\n{"n":2}\n');
    await expect(readJournal(file, lineSchema)).rejects.toBeInstanceOf(JournalCorruptError);
    await writeFile(file, '{"n":0}\n{"m":1}\n');
    await expect(readJournal(file, lineSchema)).rejects.toThrow(/j\.jsonl:2/);
  });

  it('keeps concurrent appends whole and in call order', async () => {
    const file = path.join(await tmp(), 'j.jsonl');
    const { journal } = await AppendOnlyJournal.open(file, lineSchema);
    await Promise.all(Array.from({ length: 50 }, (_, n) => journal.append({ n })));
    await journal.close();
    const { events } = await readJournal(file, lineSchema);
    expect(events.map((e) => e.n)).toEqual(Array.from({ length: 50 }, (_, n) => n));
  });

  it('refuses an invalid event without writing it', async () => {
    const file = path.join(await tmp(), 'j.jsonl');
    const { journal } = await AppendOnlyJournal.open(file, lineSchema);
    await expect(journal.append({ n: 1.5 })).rejects.toThrow();
    await journal.append({ n: 1 });
    await journal.close();
    expect((await readJournal(file, lineSchema)).events).toEqual([{ n: 1 }]);
  });

  it('survives SIGKILL of a writer in the middle of appending: every acknowledged event is there', async () => {
    const dir = await tmp();
    const file = path.join(dir, 'j.jsonl');
    // The child appends numbered events (large ones, so a kill can land mid-write)
    // and prints each number once append() has resolved (written + fsynced).
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import { AppendOnlyJournal } from ${JSON.stringify(path.resolve('src/core/journal/appendOnlyJournal.ts'))};
         import { z } from 'zod';
         const { journal } = await AppendOnlyJournal.open(${JSON.stringify(file)}, z.object({ n: z.int(), pad: z.string() }));
         for (let n = 0; ; n++) { await journal.append({ n, pad: 'x'.repeat(200000) }); process.stdout.write(n + '\\n'); }`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let acknowledged = -1;
    child.stdout.setEncoding('utf8');
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: string) => {
        for (const line of chunk.split('\n')) if (line) acknowledged = Number(line);
        if (acknowledged >= 20) {
          child.kill('SIGKILL');
          resolve();
        }
      });
    });
    await new Promise((resolve) => child.once('exit', resolve));
    const { events } = await readJournal(file, z.object({ n: z.int(), pad: z.string() }));
    expect(events.length).toBeGreaterThanOrEqual(acknowledged + 1);
    expect(events.map((e) => e.n)).toEqual(Array.from({ length: events.length }, (_, n) => n));
  }, 30_000);
});

describe('run journal', () => {
  it('stamps seq, refuses an event its plan rejects, and reopens with the same events', async () => {
    const dir = await tmp();
    const journal = await RunJournal.open(dir);
    await journal.append({ type: 'run-resumed', pid: 1 });
    await expect(
      journal.append({ type: 'run-resumed', pid: 2 }, () => {
        throw new Error('illegal');
      }),
    ).rejects.toThrow('illegal');
    await journal.append({ type: 'run-resumed', pid: 3 });
    await journal.close();
    await appendFile(journalFile(dir), '{"type":"run-res'); // a torn tail
    const reopened = await RunJournal.open(dir);
    expect(reopened.droppedTornLine).toBe(true);
    expect(reopened.events.map((e) => [e.seq, e.type === 'run-resumed' ? e.pid : -1])).toEqual([
      [0, 1],
      [1, 3],
    ]);
    await reopened.close();
  });
});

describe('serving pointer', () => {
  it('is replaced atomically and validated on read', async () => {
    const dir = await tmp();
    expect(await readServingPointer(dir)).toBeUndefined();
    const a = { version: 'base', sha256: 'a'.repeat(64) };
    const b = { version: 'v3-0123abcd', sha256: 'b'.repeat(64) };
    await writeServingPointer(dir, a);
    await writeServingPointer(dir, b);
    expect(await readServingPointer(dir)).toEqual(b);
    await expect(writeServingPointer(dir, { version: 'v3', sha256: 'nothex' })).rejects.toThrow();
    expect(await readServingPointer(dir)).toEqual(b);
  });
});
