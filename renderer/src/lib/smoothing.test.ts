import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { parseCurveCsv } from '../../../src/core/metrics/curveCsv';
import { buildChartRows, RATE_SERIES, smoothedKey, zoomRows } from './chartData';
import { debiasedEma, rollingMean, smoothSeries, smoothingLabel } from './smoothing';

const reef = parseCurveCsv(
  readFileSync(fileURLToPath(new URL('../../../assets/reference/2026-09-14-qwen3.5-9b-gated/curve.csv', import.meta.url)), 'utf8'),
).rows;

describe('smoothing (unit)', () => {
  test('a rolling mean averages the window, fewer values at the start', () => {
    expect(rollingMean([1, 0, 1, 1, 0], 2)).toEqual([1, 0.5, 0.5, 1, 0.5]);
    expect(rollingMean([1, 0, 1], 1)).toEqual([1, 0, 1]);
    expect(rollingMean([1, 0, 0], 10)).toEqual([1, 0.5, 1 / 3]);
    expect(() => rollingMean([1], 0)).toThrow(/whole number/);
    expect(() => rollingMean([1], 2.5)).toThrow(/whole number/);
  });

  test("a rolling mean over 10 sessions reproduces curve.csv's rate columns to the last bit (Reef's 72 sessions)", () => {
    for (const series of RATE_SERIES) {
      expect(smoothSeries(reef, series, { kind: 'window', size: 10 }), series.key).toEqual(reef.map((row) => row[series.key]));
    }
  });

  test("the EMA is TensorBoard's: started at 0 and debiased, so a constant series stays constant", () => {
    expect(debiasedEma([1, 1, 1, 1], 0.9)).toEqual([1, 1, 1, 1].map(() => expect.closeTo(1, 12)));
    // By hand: w = 0.5 → last = 0.5, 0.25, 0.625; debias 0.5, 0.75, 0.875.
    expect(debiasedEma([1, 0, 1], 0.5)).toEqual([1, expect.closeTo(1 / 3, 12), expect.closeTo(5 / 7, 12)]);
    expect(debiasedEma([1, 0, 1], 0)).toEqual([1, 0, 1]);
    expect(() => debiasedEma([1], 1)).toThrow(/\[0, 1\)/);
    expect(() => debiasedEma([1], -0.1)).toThrow(/\[0, 1\)/);
  });

  test('"file" is the file\'s column as written, "none" the per-session flags', () => {
    const accept = RATE_SERIES[0];
    const disagreeing = reef.slice(0, 3).map((row) => ({ ...row, accept_rate_10: 0.5 }));
    expect(smoothSeries(disagreeing, accept, { kind: 'file' })).toEqual([0.5, 0.5, 0.5]);
    expect(smoothSeries(reef, accept, { kind: 'none' })).toEqual(reef.map((row) => row.accept));
    expect(smoothingLabel({ kind: 'ema', weight: 0.6 })).toBe('EMA, weight 0.6');
  });

  test('chart rows are smoothed over the whole run before the range and the zoom cut them, raw values kept', () => {
    const smoothing = { kind: 'window', size: 5 } as const;
    const all = buildChartRows(reef, null, 'all', 36, smoothing);
    const first36 = buildChartRows(reef, null, 'published', 36, smoothing);
    expect(first36).toEqual(all.slice(0, 36));
    const zoomed = zoomRows(all, { from: 40, to: 44 });
    expect(zoomed.map((row) => row.session)).toEqual([40, 41, 42, 43, 44]);
    // Session 40's window reaches back to 36, outside the zoom.
    const expected = reef.slice(36, 41).reduce((sum, row) => sum + row.bold, 0) / 5;
    expect(zoomed[0]![smoothedKey('bold_rate_10')]).toBe(expected);
    expect(zoomed[0]!.bold_rate_10).toBe(reef[40]!.bold_rate_10);
    expect(zoomRows(all, { from: 44, to: 40 })).toEqual(zoomed);
  });

  test('the reference overlay is smoothed like the run and joined by session', () => {
    const run = reef.slice(10, 14);
    const rows = buildChartRows(run, reef, 'all', 36, { kind: 'window', size: 3 });
    const referenceSmoothed = rollingMean(
      reef.map((row) => row.accept),
      3,
    );
    expect(rows.map((row) => row.reference_accept_rate_10)).toEqual(referenceSmoothed.slice(10, 14));
    expect(rows.map((row) => row.reference_accept)).toEqual(reef.slice(10, 14).map((row) => row.accept));
  });
});
