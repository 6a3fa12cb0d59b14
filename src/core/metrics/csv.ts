// A small, strict CSV reader and writer for the lab's own tables (curve.csv,
// gate.csv). Written by hand because none of the kept libraries reads CSV and
// the files are simple (RFC 4180: commas, optional double quotes, LF or CRLF);
// what matters here is the error: every problem names the file, the line and
// the column, so a person can open the file and fix it.

import type { z } from 'zod';

export class CsvError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: { index: number; name: string } | null,
    readonly problem: string,
  ) {
    const where = column ? `line ${line}, column ${column.index} (${column.name})` : `line ${line}`;
    super(`${file}: ${where}: ${problem}`);
    this.name = 'CsvError';
  }
}

/** One CSV record and the 1-based line it starts on. */
export type CsvRecord = { readonly line: number; readonly cells: readonly string[] };

/** Splits CSV text into records. Quoted fields may hold commas, quotes ("") and line breaks. */
export function readCsvRecords(text: string, file: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  const src = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let line = 1;
  let recordLine = 1;
  let cells: string[] = [];
  let cell = '';
  let i = 0;
  const endRecord = () => {
    cells.push(cell);
    records.push({ line: recordLine, cells });
    cells = [];
    cell = '';
  };
  while (i < src.length) {
    const ch = src[i];
    if (ch === '"' && cell === '') {
      // A quoted field: runs to the next lone quote.
      const openLine = line;
      i++;
      for (;;) {
        if (i >= src.length) throw new CsvError(file, openLine, null, 'a quoted field is never closed');
        const q = src[i];
        if (q === '"') {
          if (src[i + 1] === '"') {
            cell += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (q === '\n') line++;
        cell += q;
        i++;
      }
      const next = src[i];
      if (next !== undefined && next !== ',' && next !== '\n' && next !== '\r') {
        throw new CsvError(file, line, null, 'text after the closing quote of a field');
      }
      continue;
    }
    if (ch === ',') {
      cells.push(cell);
      cell = '';
      i++;
    } else if (ch === '\n' || ch === '\r') {
      endRecord();
      i += ch === '\r' && src[i + 1] === '\n' ? 2 : 1;
      line++;
      recordLine = line;
    } else if (ch === '"') {
      throw new CsvError(file, line, null, 'a double quote inside an unquoted field');
    } else {
      cell += ch;
      i++;
    }
  }
  // The last record has no line break after it (or the text ended with one).
  if (cell !== '' || cells.length > 0) endRecord();
  return records;
}

function quoteCell(cell: string): string {
  return /[",\r\n]/u.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
}

/** Writes records as CSV with "\n" line ends and a final line break (as Python's csv module with lineterminator="\n"). */
export function writeCsvRecords(records: readonly (readonly string[])[]): string {
  return records.map((cells) => cells.map(quoteCell).join(',')).join('\n') + '\n';
}

/** A table layout: its columns in file order, and a zod schema from a row of cell texts to a typed row. */
export type CsvTableSpec<C extends string, R> = {
  readonly columns: readonly C[];
  readonly row: z.ZodType<R, Record<C, string>>;
  /**
   * Whether columns after `columns` are allowed (GateLab's gate.csv is Reef's
   * columns first, then its own): they must be named, and every row must
   * have as many fields as the header; their cells are not validated here.
   */
  readonly trailingColumns?: 'refuse' | 'allow';
};

export type ParsedTable<R> = {
  readonly rows: R[];
  /** The record behind each row (same index): its line and raw cell texts. */
  readonly records: CsvRecord[];
};

/** Reads a CSV whose header must start with (or be exactly) `spec.columns`, validating every row. */
export function parseCsvTable<C extends string, R>(text: string, file: string, spec: CsvTableSpec<C, R>): ParsedTable<R> {
  const all = readCsvRecords(text, file);
  // Blank lines at the very end are harmless (an editor's extra newline).
  while (all.length > 1 && all.at(-1)?.cells.length === 1 && all.at(-1)?.cells[0] === '') all.pop();
  const header = all[0];
  if (!header || (header.cells.length === 1 && header.cells[0] === '')) {
    throw new CsvError(file, 1, null, `the file is empty; expected the header ${spec.columns.join(',')}`);
  }
  spec.columns.forEach((name, k) => {
    const got = header.cells[k];
    if (got !== name) {
      const seen = got === undefined ? 'nothing' : JSON.stringify(got);
      throw new CsvError(file, 1, { index: k + 1, name }, `expected the header column "${name}", found ${seen}`);
    }
  });
  if (header.cells.length > spec.columns.length) {
    const extra = header.cells[spec.columns.length] ?? '';
    if (spec.trailingColumns !== 'allow') {
      throw new CsvError(file, 1, null, `unexpected extra header column "${extra}" after ${spec.columns.length} columns`);
    }
    const unnamed = header.cells.findIndex((cell, k) => k >= spec.columns.length && cell.trim() === '');
    if (unnamed >= 0) throw new CsvError(file, 1, null, `header column ${unnamed + 1} has no name`);
  }
  const width = header.cells.length;

  const rows: R[] = [];
  const records: CsvRecord[] = [];
  for (const record of all.slice(1)) {
    if (record.cells.length === 1 && record.cells[0] === '') {
      throw new CsvError(file, record.line, null, 'empty line inside the table');
    }
    if (record.cells.length !== width) {
      throw new CsvError(file, record.line, null, `has ${record.cells.length} fields, expected ${width}`);
    }
    const raw = Object.fromEntries(spec.columns.map((name, k) => [name, record.cells[k] ?? ''])) as Record<C, string>;
    const parsed = spec.row.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const key = issue?.path[0];
      const index = spec.columns.findIndex((c) => c === key);
      const name = spec.columns[index];
      const message = issue?.message ?? 'invalid row';
      if (name === undefined) throw new CsvError(file, record.line, null, message);
      throw new CsvError(file, record.line, { index: index + 1, name }, `${message}, found ${JSON.stringify(raw[name])}`);
    }
    rows.push(parsed.data);
    records.push(record);
  }
  return { rows, records };
}
