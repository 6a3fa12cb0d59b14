import type { CurveRow, GateRow } from '../../../electron/contract/runs';
import { PALETTE } from './palette';

/** The rolling-rate series the chart can draw, and how each is named and coloured. */
export const RATE_SERIES = [
  { key: 'accept_rate_10', label: 'Accept', color: PALETTE.accept },
  { key: 'style_clean_rate_10', label: 'Style-clean', color: PALETTE.clean },
  { key: 'bold_rate_10', label: 'Bold', color: PALETTE.bold },
  { key: 'list_rate_10', label: 'List', color: PALETTE.list },
] as const satisfies readonly { key: keyof CurveRow; label: string; color: string }[];

export type RateKey = (typeof RATE_SERIES)[number]['key'];

export type SessionRange = 'published' | 'all';

/** One point of the curve chart: the run's row, plus the reference's accept rate when overlaid. */
export type ChartRow = CurveRow & { reference_accept_rate_10?: number; reference_style_clean_rate_10?: number };

/** The sessions a range shows: the first `publishedSessions` (36), or all. */
export function sessionsInRange<T>(rows: readonly T[], range: SessionRange, publishedSessions: number): T[] {
  return range === 'all' ? [...rows] : rows.slice(0, publishedSessions);
}

/**
 * Joins the run's rows with the reference overlay by session number (not by
 * position, so a run that starts at another session still lines up).
 */
export function buildChartRows(
  sessions: readonly CurveRow[],
  overlay: readonly CurveRow[] | null,
  range: SessionRange,
  publishedSessions: number,
): ChartRow[] {
  const shown = sessionsInRange(sessions, range, publishedSessions);
  if (overlay === null) return shown.map((row) => ({ ...row }));
  const bySession = new Map(overlay.map((row) => [row.session, row]));
  return shown.map((row) => {
    const reference = bySession.get(row.session);
    return reference === undefined
      ? { ...row }
      : {
          ...row,
          reference_accept_rate_10: reference.accept_rate_10,
          reference_style_clean_rate_10: reference.style_clean_rate_10,
        };
  });
}

/** Why a session was not accepted, in the criterion's words (empty when accepted). */
export function rejectionReasons(row: CurveRow): string[] {
  if (row.accept === 1) return [];
  const reasons: string[] = [];
  if (row.first_reply_chars === 0) reasons.push('no reply');
  if (row.bold === 1) reasons.push('bold');
  if (row.bullets === 1) reasons.push('bullets');
  if (row.numbered === 1) reasons.push('numbered list');
  if (row.no_shown_work === 1) reasons.push('no shown work');
  if (row.no_gold_answer === 1) reasons.push('no gold answer');
  if (reasons.length === 0) reasons.push('other marker (header, \\boxed, "final answer:", rule or table)');
  return reasons;
}

/** Mean of a column over the first / last `n` rows, for the summary tiles. */
export function windowMean(rows: readonly CurveRow[], key: keyof CurveRow, n: number, from: 'start' | 'end'): number | null {
  const window = from === 'start' ? rows.slice(0, n) : rows.slice(-n);
  if (window.length === 0) return null;
  return window.reduce((sum, row) => sum + row[key], 0) / window.length;
}

export interface GateStats {
  selected: number;
  rejected: number;
}

export function gateStats(steps: readonly GateRow[]): GateStats {
  let selected = 0;
  let rejected = 0;
  for (const step of steps) {
    switch (step.outcome) {
      case 'select':
        selected++;
        break;
      case 'reject':
        rejected++;
        break;
    }
  }
  return { selected, rejected };
}
