/**
 * A worker's whole output, kept in a file of the run folder
 * (`<run>/workers/<role>.log`) so nothing the panel's short tail drops is
 * lost. Appended line by line with a synchronous write: a lab killed the next
 * instant still has every line it received. Bounded: past `maxBytes` the file
 * becomes `<role>.log.1` (replacing the previous one) and a new one starts,
 * so a worker that prints without pause holds at most twice `maxBytes`.
 */
import { closeSync, fstatSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';

/** Per file; one older file is kept beside it. */
export const WORKER_LOG_MAX_BYTES = 8 * 1024 * 1024;

export class WorkerLogFile {
  private fd: number | undefined;
  private bytes = 0;
  /** Set once writing failed (a full disk, a removed folder): the file is given up, the lab goes on. */
  private broken: string | undefined;

  constructor(
    readonly file: string,
    private readonly maxBytes: number = WORKER_LOG_MAX_BYTES,
  ) {}

  /** Why the file stopped being written, if it did. */
  get problem(): string | undefined {
    return this.broken;
  }

  write(line: string): void {
    if (this.broken !== undefined) return;
    const data = Buffer.from(`${line}\n`, 'utf8');
    try {
      if (this.fd === undefined) this.open();
      if (this.bytes > 0 && this.bytes + data.length > this.maxBytes) this.rotate();
      writeSync(this.fd as number, data);
      this.bytes += data.length;
    } catch (error) {
      this.broken = (error as Error).message;
      this.close();
    }
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // already closed: nothing more to do
    }
    this.fd = undefined;
  }

  private open(): void {
    mkdirSync(path.dirname(this.file), { recursive: true });
    this.fd = openSync(this.file, 'a', 0o600);
    this.bytes = fstatSync(this.fd).size;
  }

  private rotate(): void {
    this.close();
    renameSync(this.file, `${this.file}.1`);
    this.open();
  }
}
