import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { parseCurveCsv } from '../../../src/core/metrics/curveCsv';
import { buildChartRows, RATE_SERIES } from './chartData';
import { chartRowsCsv, compareCsv, csvRecord } from './exportSeries';

const reefText = readFileSync(fileURLToPath(new URL('../../../assets/reference/2026-09-14-qwen3.5-9b-gated/curve.csv', import.meta.url)), 'utf8');
const reef = parseCurveCsv(reefText).rows;

describe('exported series (unit)', () => {
  test("the whole run with the file's smoothing is its curve.csv, byte for byte", () => {
    expect(chartRowsCsv(buildChartRows(reef, null, 'all', 36), { kind: 'file' })).toBe(reefText);
  });

  test("another smoothing adds one column per series, named by the smoothing, after curve.csv's own", () => {
    const text = chartRowsCsv(buildChartRows(reef, null, 'published', 36, { kind: 'ema', weight: 0.6 }), { kind: 'ema', weight: 0.6 });
    const [header, ...rows] = text.trimEnd().split('\n');
    expect(header).toBe(`${reefText.split('\n')[0]},accept_ema0.6,style_clean_ema0.6,bold_ema0.6,list_ema0.6`);
    expect(rows).toHaveLength(36);
    expect(rows[0]!.startsWith(reefText.split('\n')[1]!)).toBe(true);
    // Session 0 of an EMA is its own value (debiased), written as Python writes floats.
    expect(rows[0]!.split(',').slice(16)).toEqual(RATE_SERIES.map((series) => (reef[0]![series.raw] === 1 ? '1.0' : '0.0')));
  });

  test("a comparison lists each run's values by session, empty where a run has no such session", () => {
    const text = compareCsv(
      [
        { label: 'reef', rows: reef.slice(0, 3) },
        { label: 'short, run', rows: reef.slice(0, 2) },
      ],
      RATE_SERIES[0],
      { kind: 'window', size: 2 },
      [0, 1, 2],
    );
    expect(text.split('\n')[0]).toBe('session,reef:accept,reef:accept_roll2,"short, run:accept","short, run:accept_roll2"');
    expect(text.split('\n')[3]).toMatch(/^2,\d,[0-9.e-]+,,$/);
  });

  test('cells with commas, quotes or line breaks are quoted', () => {
    expect(csvRecord(['a', 'b,c', 'say "hi"', 'x\ny'])).toBe('a,"b,c","say ""hi""","x\ny"');
  });
});
