import type { CurveRow, GateRow } from '../../../src/contract/runs';
import { PALETTE } from './palette';
import { DEFAULT_SMOOTHING, smoothSeries, type Smoothing } from './smoothing';

/** The rolling-rate series the chart can draw, and how each is named and coloured. */
export const RATE_SERIES = [
  { key: 'accept_rate_10', raw: 'accept', label: 'Accept', color: PALETTE.accept },
  { key: 'style_clean_rate_10', raw: 'style_clean', label: 'Style-clean', color: PALETTE.clean },
  { key: 'bold_rate_10', raw: 'bold', label: 'Bold', color: PALETTE.bold },
  { key: 'list_rate_10', raw: 'list', label: 'List', color: PALETTE.list },
] as const satisfies readonly { key: keyof CurveRow; raw: keyof CurveRow; label: string; color: string }[];

export type RateKey = (typeof RATE_SERIES)[number]['key'];

export type SessionRange = 'published' | 'all';

/** The key of a rate series' smoothed values in a chart row (the row's own columns stay as in the file). */
export type SmoothedKey = `smooth_${RateKey}`;
export const smoothedKey = (key: RateKey): SmoothedKey => `smooth_${key}`;

/**
 * One point of the curve chart: the run's row exactly as loaded (raw values
 * for the tooltip and the CSV), each rate series smoothed as asked, and the
 * reference's accept rate (smoothed the same way) and raw accept when overlaid.
 */
export type ChartRow = CurveRow & Record<SmoothedKey, number> & { reference_accept_rate_10?: number; reference_accept?: number };

/** The sessions a range shows: the first `publishedSessions` (36), or all. */
export function sessionsInRange<T>(rows: readonly T[], range: SessionRange, publishedSessions: number): T[] {
  return range === 'all' ? [...rows] : rows.slice(0, publishedSessions);
}

/**
 * The chart's rows: each series smoothed over the whole run first (a window
 * at session 30 reaches back past any range), then cut to the range; the
 * reference overlay joined by session number (not by position, so a run that
 * starts at another session still lines up).
 */
export function buildChartRows(
  sessions: readonly CurveRow[],
  overlay: readonly CurveRow[] | null,
  range: SessionRange,
  publishedSessions: number,
  smoothing: Smoothing = DEFAULT_SMOOTHING,
): ChartRow[] {
  const smoothed = RATE_SERIES.map((series) => smoothSeries(sessions, series, smoothing));
  const rows = sessions.map((row, i) => {
    const out = { ...row } as ChartRow;
    RATE_SERIES.forEach((series, s) => {
      out[smoothedKey(series.key)] = smoothed[s]![i]!;
    });
    return out;
  });
  if (overlay !== null) {
    const acceptSeries = RATE_SERIES[0];
    const referenceAccept = smoothSeries(overlay, acceptSeries, smoothing);
    const bySession = new Map(overlay.map((row, i) => [row.session, { raw: row.accept, smoothed: referenceAccept[i]! }]));
    for (const row of rows) {
      const reference = bySession.get(row.session);
      if (reference === undefined) continue;
      row.reference_accept_rate_10 = reference.smoothed;
      row.reference_accept = reference.raw;
    }
  }
  return sessionsInRange(rows, range, publishedSessions);
}

/** A session range a person zoomed into, both ends included. */
export type Zoom = { readonly from: number; readonly to: number };

/** What the reference overlay is called wherever it is named (legend, tooltip, exports). */
export const referenceLabel = (overlayTitle: string | null): string => `${overlayTitle ?? 'Reef reference'}: accept`;

/** A y range a person typed in, as rates (0…1), min below max. */
export type YRange = { readonly min: number; readonly max: number };
export const FULL_Y_RANGE: YRange = { min: 0, max: 1 };

/** The rows within a zoom (all of them without one). */
export function zoomRows<T extends { session: number }>(rows: readonly T[], zoom: Zoom | null): T[] {
  if (zoom === null) return [...rows];
  const from = Math.min(zoom.from, zoom.to);
  const to = Math.max(zoom.from, zoom.to);
  return rows.filter((row) => row.session >= from && row.session <= to);
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
