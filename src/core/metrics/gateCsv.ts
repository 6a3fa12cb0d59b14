// gate.csv in Reef's published layout: one row per optimizer step with the
// regression gate's outcome and the probe rates it compared.

import { z } from 'zod';
import { countCell, optionalRateCell } from './cells';
import { parseCsvTable, writeCsvRecords, type CsvTableSpec } from './csv';
import { formatPythonFloat } from './pythonFloat';

/** Reef's gate.csv columns, in Reef's order. */
export const GATE_COLUMNS = ['step', 'outcome', 'clean_rate', 'best', 'answered_rate', 'gold_rate'] as const;
export type GateColumn = (typeof GATE_COLUMNS)[number];

export const GATE_OUTCOMES = ['select', 'reject'] as const;
export type GateOutcome = (typeof GATE_OUTCOMES)[number];

/** The probe rates of a row; null where the cell is empty: not measured. */
export const GATE_RATE_COLUMNS = ['clean_rate', 'best', 'answered_rate', 'gold_rate'] as const;

/**
 * One gate decision. Reef's rows always carry the four rates; GateLab's leave
 * them empty (null here) for a candidate rejected before any probe round —
 * verify refused it (non-finite values, wrong shape, damaged bytes, an update
 * beyond the norm bound), so nothing was measured. Only a reject can be
 * unmeasured: a select without its rates is refused.
 */
export type GateRow = {
  step: number;
  outcome: GateOutcome;
  /** The candidate's probe style rate. */
  clean_rate: number | null;
  /** The best style rate selected so far (what the candidate was compared with). */
  best: number | null;
  answered_rate: number | null;
  gold_rate: number | null;
};

const gateRowSchema = z
  .object({
    step: countCell,
    outcome: z.string().pipe(z.enum(GATE_OUTCOMES, { error: 'expected select or reject' })),
    clean_rate: optionalRateCell,
    best: optionalRateCell,
    answered_rate: optionalRateCell,
    gold_rate: optionalRateCell,
  } satisfies Record<GateColumn, z.ZodType>)
  .superRefine((row, ctx) => {
    if (row.outcome !== 'select') return;
    for (const column of GATE_RATE_COLUMNS) {
      if (row[column] === null)
        ctx.addIssue({ code: 'custom', path: [column], message: 'a selected candidate must have been measured: expected a number between 0 and 1' });
    }
  });

// GateLab's own gate.csv appends its columns after Reef's six; the viewer reads Reef's part of either.
const gateSpec: CsvTableSpec<GateColumn, GateRow> = { columns: GATE_COLUMNS, row: gateRowSchema, trailingColumns: 'allow' };

/** Parses a gate.csv (Reef's columns, then any of ours); throws CsvError naming the file, line and column of the first problem. */
export function parseGateCsv(text: string, file = 'gate.csv'): GateRow[] {
  return parseCsvTable(text, file, gateSpec).rows;
}

export function formatGateCsv(rows: readonly GateRow[]): string {
  return writeCsvRecords([
    [...GATE_COLUMNS],
    ...rows.map((r) => [
      String(r.step),
      r.outcome,
      ...GATE_RATE_COLUMNS.map((column) => {
        const value = r[column];
        return value === null ? '' : formatPythonFloat(value);
      }),
    ]),
  ]);
}
