// An append-only JSON-lines file with one fsync per event (docs/design.md, invariant 3).
// Reading drops a torn last line — a line without its newline is an append
// that a crash interrupted, so it never happened — and truncates it away
// before the next append, so the next event does not glue onto the debris.
// A damaged line anywhere else is not a crash artefact: reading fails closed.
import { open, readFile, type FileHandle } from 'node:fs/promises';
import type { z } from 'zod';

export class JournalCorruptError extends Error {
  constructor(file: string, line: number, why: string) {
    super(`${file}:${line}: journal line is damaged (${why}); refusing to guess`);
    this.name = 'JournalCorruptError';
  }
}

export type JournalRead<E> = { events: E[]; droppedTornLine: boolean; validBytes: number };

/** Reads and validates every complete line; a missing file is an empty journal. */
export async function readJournal<E>(file: string, schema: z.ZodType<E>): Promise<JournalRead<E>> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { events: [], droppedTornLine: false, validBytes: 0 };
    throw error;
  }
  const lastNewline = bytes.lastIndexOf(0x0a);
  const validBytes = lastNewline + 1;
  const text = bytes.subarray(0, validBytes).toString('utf8');
  const events: E[] = [];
  const lines = text.split('\n');
  lines.pop(); // the empty string after the final newline
  lines.forEach((line, i) => {
    let data: unknown;
    try {
      data = JSON.parse(line);
    } catch {
      throw new JournalCorruptError(file, i + 1, 'not JSON');
    }
    const parsed = schema.safeParse(data);
    if (!parsed.success) throw new JournalCorruptError(file, i + 1, parsed.error.issues[0]?.message ?? 'invalid event');
    events.push(parsed.data);
  });
  return { events, droppedTornLine: validBytes < bytes.length, validBytes };
}

/** The writer: appends are queued so concurrent callers never interleave bytes. */
export class AppendOnlyJournal<E> {
  private tail: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(
    readonly file: string,
    private readonly handle: FileHandle,
    private readonly schema: z.ZodType<E>,
  ) {}

  /** Opens for appending; returns what is already there (torn tail removed from disk). */
  static async open<E>(file: string, schema: z.ZodType<E>): Promise<{ journal: AppendOnlyJournal<E> } & JournalRead<E>> {
    const read = await readJournal(file, schema);
    const handle = await open(file, 'a+');
    if (read.droppedTornLine) {
      await handle.truncate(read.validBytes);
      await handle.sync();
    }
    return { journal: new AppendOnlyJournal(file, handle, schema), ...read };
  }

  /** Resolves once the event is on disk (written and fsynced). */
  append(event: E): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`journal ${this.file} is closed`));
    // Validate before writing: a bad event is a bug in the caller, never a line on disk.
    const parsed = this.schema.safeParse(event);
    if (!parsed.success) return Promise.reject(parsed.error);
    const valid = parsed.data;
    const line = Buffer.from(JSON.stringify(valid) + '\n', 'utf8');
    const write = this.tail.then(async () => {
      await this.handle.appendFile(line);
      await this.handle.sync();
    });
    // A failed write must not wedge later appends, but its caller sees the error.
    this.tail = write.catch(() => undefined);
    return write;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.tail;
    await this.handle.close();
  }
}
