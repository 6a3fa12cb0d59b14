import { formatPythonFloat } from '../../../src/contract/csvFloatFormat';
import { CurveRow } from '../../../src/contract/runs';
import { RATE_SERIES, smoothedKey, type ChartRow } from './chartData';
import { smoothSeries, smoothingTag, type SmoothableSeries, type Smoothing } from './smoothing';

/** curve.csv's columns in the file's order (the contract spells them in that order). */
export const CURVE_CSV_COLUMNS = Object.keys(CurveRow.shape) as (keyof CurveRow)[];
const RATE_COLUMNS = new Set<keyof CurveRow>(RATE_SERIES.map((series) => series.key));

/** One CSV record: a cell is quoted when it holds a comma, a quote or a line break (RFC 4180). */
export function csvRecord(cells: readonly string[]): string {
  return cells.map((cell) => (/[",\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell)).join(',');
}

/** A rate as Reef writes it (Python's float repr), an integer plainly. */
const cell = (value: number, rate: boolean): string => (rate ? formatPythonFloat(value) : String(value));

/**
 * The name of a series as smoothed: the file's own rate column for the
 * file's smoothing, else the per-session column it was computed from and
 * how (`bold_ema0.6` is the EMA of the per-session `bold` values).
 */
export function smoothedColumn(series: SmoothableSeries, smoothing: Smoothing): string {
  return smoothing.kind === 'file' ? series.key : `${series.raw}_${smoothingTag(smoothing)}`;
}

/**
 * The series in view as a CSV: curve.csv's own columns, in its format (so
 * the rows of a run exported whole are its curve.csv byte for byte), then,
 * when the chart is smoothed otherwise than the file, each rate series as
 * drawn (`accept_ema0.6`, …).
 */
export function chartRowsCsv(rows: readonly ChartRow[], smoothing: Smoothing): string {
  const extra = smoothing.kind === 'file' ? [] : [...RATE_SERIES];
  const header = [...CURVE_CSV_COLUMNS, ...extra.map((series) => smoothedColumn(series, smoothing))];
  const body = rows.map((row) => [
    ...CURVE_CSV_COLUMNS.map((column) => cell(row[column], RATE_COLUMNS.has(column))),
    ...extra.map((series) => formatPythonFloat(row[smoothedKey(series.key)])),
  ]);
  return [header, ...body].map(csvRecord).join('\n') + '\n';
}

/** A run in a comparison: its name and rows. */
export type ComparedSeries = { readonly label: string; readonly rows: readonly CurveRow[] };

/**
 * Several runs' one series side by side, by session: for each run its
 * per-session values and the series as drawn. A session a run lacks is an
 * empty cell.
 */
export function compareCsv(runs: readonly ComparedSeries[], series: SmoothableSeries, smoothing: Smoothing, sessions: readonly number[]): string {
  // With the file's own smoothing the drawn series is the file's column: named as in curve.csv.
  const drawn = smoothedColumn(series, smoothing);
  const header = ['session', ...runs.flatMap((run) => [`${run.label}:${series.raw}`, `${run.label}:${drawn}`])];
  const columns = runs.map((run) => {
    const smoothed = smoothSeries(run.rows, series, smoothing);
    return new Map(run.rows.map((row, i) => [row.session, { raw: row[series.raw], smoothed: smoothed[i]! }]));
  });
  const body = sessions.map((session) => [
    String(session),
    ...columns.flatMap((bySession) => {
      const point = bySession.get(session);
      return point === undefined ? ['', ''] : [String(point.raw), formatPythonFloat(point.smoothed)];
    }),
  ]);
  return [header, ...body].map(csvRecord).join('\n') + '\n';
}
