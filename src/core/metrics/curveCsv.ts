// curve.csv: read (validated, errors naming line and column), write (byte for
// byte as Reef's Python writes it), and check that a file's derived columns
// agree with its per-session columns.

import { z } from 'zod';
import { bitCell, countCell, rateCell, writtenPrecision } from './cells';
import { CsvError, parseCsvTable, writeCsvRecords, type CsvTableSpec } from './csv';
import { CURVE_COLUMNS, DERIVED_COLUMNS, curveRows, type CurveColumn, type CurveRow } from './curve';
import { formatPythonFloat } from './pythonFloat';

const curveRowSchema = z.object({
  session: countCell,
  accept: bitCell,
  bold: bitCell,
  bullets: bitCell,
  numbered: bitCell,
  list: bitCell,
  no_shown_work: bitCell,
  no_gold_answer: bitCell,
  style_clean: bitCell,
  turns: countCell,
  first_reply_chars: countCell,
  accept_cum: countCell,
  accept_rate_10: rateCell,
  bold_rate_10: rateCell,
  list_rate_10: rateCell,
  style_clean_rate_10: rateCell,
} satisfies Record<CurveColumn, z.ZodType>);

const curveSpec: CsvTableSpec<CurveColumn, CurveRow> = { columns: CURVE_COLUMNS, row: curveRowSchema };

const RATE_COLUMNS = new Set<CurveColumn>(['accept_rate_10', 'bold_rate_10', 'list_rate_10', 'style_clean_rate_10']);

export type CurveFile = {
  rows: CurveRow[];
  /** The 1-based line of each row and its cell texts, for precise messages. */
  records: { line: number; cells: readonly string[] }[];
};

/** Parses a curve.csv; throws CsvError naming the file, line and column of the first problem. */
export function parseCurveCsv(text: string, file = 'curve.csv'): CurveFile {
  const table = parseCsvTable(text, file, curveSpec);
  table.rows.forEach((row, i) => {
    const first = table.rows[0];
    if (first && row.session !== first.session + i) {
      const line = table.records[i]?.line ?? 0;
      throw new CsvError(file, line, { index: 1, name: 'session' }, `sessions must be consecutive: expected ${first.session + i}, found "${row.session}"`);
    }
  });
  return table;
}

/** Writes curve rows as Reef does: integers plainly, rates as Python float reprs, "\n" line ends. */
export function formatCurveCsv(rows: readonly CurveRow[]): string {
  const body = rows.map((row) => CURVE_COLUMNS.map((col) => (RATE_COLUMNS.has(col) ? formatPythonFloat(row[col]) : String(row[col]))));
  return writeCsvRecords([[...CURVE_COLUMNS], ...body]);
}

export type DerivedMismatch = {
  line: number;
  column: { index: number; name: CurveColumn };
  found: string;
  expected: number;
};

/**
 * Recomputes the derived columns of a parsed curve from its per-session
 * columns and lists every cell that disagrees beyond the precision it was
 * written with.
 */
export function checkDerivedColumns(curve: CurveFile): DerivedMismatch[] {
  const recomputed = curveRows(curve.rows);
  const mismatches: DerivedMismatch[] = [];
  recomputed.forEach((row, i) => {
    const record = curve.records[i];
    if (!record) return;
    for (const name of DERIVED_COLUMNS) {
      const index = CURVE_COLUMNS.indexOf(name);
      const found = record.cells[index] ?? '';
      const expected = row[name];
      if (Math.abs(Number(found) - expected) > writtenPrecision(found)) {
        mismatches.push({ line: record.line, column: { index: index + 1, name }, found, expected });
      }
    }
  });
  return mismatches;
}

export function describeMismatch(file: string, m: DerivedMismatch): string {
  return `${file}: line ${m.line}, column ${m.column.index} (${m.column.name}): found ${m.found}, the per-session columns give ${m.expected}`;
}
