// gate.csv in Reef's published layout: one row per optimizer step with the
// regression gate's outcome and the probe rates it compared.

import { z } from 'zod';
import { countCell, rateCell } from './cells';
import { parseCsvTable, writeCsvRecords, type CsvTableSpec } from './csv';
import { formatPythonFloat } from './pythonFloat';

/** Reef's gate.csv columns, in Reef's order. */
export const GATE_COLUMNS = ['step', 'outcome', 'clean_rate', 'best', 'answered_rate', 'gold_rate'] as const;
export type GateColumn = (typeof GATE_COLUMNS)[number];

export const GATE_OUTCOMES = ['select', 'reject'] as const;
export type GateOutcome = (typeof GATE_OUTCOMES)[number];

export type GateRow = {
  step: number;
  outcome: GateOutcome;
  /** The candidate's probe style rate. */
  clean_rate: number;
  /** The best style rate selected so far (what the candidate was compared with). */
  best: number;
  answered_rate: number;
  gold_rate: number;
};

const gateRowSchema = z.object({
  step: countCell,
  outcome: z.string().pipe(z.enum(GATE_OUTCOMES, { error: 'expected select or reject' })),
  clean_rate: rateCell,
  best: rateCell,
  answered_rate: rateCell,
  gold_rate: rateCell,
} satisfies Record<GateColumn, z.ZodType>);

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
      formatPythonFloat(r.clean_rate),
      formatPythonFloat(r.best),
      formatPythonFloat(r.answered_rate),
      formatPythonFloat(r.gold_rate),
    ]),
  ]);
}
