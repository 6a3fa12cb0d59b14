import type { CurveRow } from '../../../src/contract/runs';

/**
 * How the learning curve is smoothed, as TensorBoard and W&B offer it:
 * - `file`: the run's own rolling-10 columns exactly as curve.csv has them
 *   (Reef's published curve; a file whose columns disagree with its
 *   per-session flags is still drawn as written, and the viewer says so);
 * - `window`: a rolling mean over the last `size` sessions (fewer at the
 *   start), computed from the per-session flags — with 10 it reproduces the
 *   file's columns to the last bit;
 * - `ema`: TensorBoard's exponential moving average with its start-up bias
 *   corrected, `weight` 0 (none) … 0.99 (heavy);
 * - `none`: the per-session values themselves.
 * The raw per-session values are kept in every case (drawn faintly, listed in
 * the tooltip and the exported CSV).
 */
export type Smoothing =
  | { readonly kind: 'file' }
  | { readonly kind: 'window'; readonly size: number }
  | { readonly kind: 'ema'; readonly weight: number }
  | { readonly kind: 'none' };

export const DEFAULT_SMOOTHING: Smoothing = { kind: 'file' };
export const MAX_WINDOW = 72;
export const MAX_EMA_WEIGHT = 0.99;

/** A rate series and the per-session flag it averages (chartData's RATE_SERIES). */
export type SmoothableSeries = {
  readonly key: 'accept_rate_10' | 'style_clean_rate_10' | 'bold_rate_10' | 'list_rate_10';
  readonly raw: 'accept' | 'style_clean' | 'bold' | 'list';
};

/**
 * Mean of each value with the `size - 1` before it (fewer at the start):
 * integers summed, then one division, as the metrics domain (and Python's
 * sum/len) computes the file's columns, so the doubles agree exactly.
 */
export function rollingMean(values: readonly number[], size: number): number[] {
  if (!Number.isInteger(size) || size < 1) throw new Error(`a rolling window is a whole number of sessions ≥ 1, not ${size}`);
  return values.map((_, i) => {
    const window = values.slice(Math.max(0, i - size + 1), i + 1);
    return window.reduce((a, b) => a + b, 0) / window.length;
  });
}

/**
 * TensorBoard's smoothing: an exponential moving average started at 0 and
 * divided by 1 − weightⁿ, so the first points are not pulled towards 0.
 */
export function debiasedEma(values: readonly number[], weight: number): number[] {
  if (!(weight >= 0 && weight < 1)) throw new Error(`an EMA weight is in [0, 1), not ${weight}`);
  let last = 0;
  return values.map((value, i) => {
    last = last * weight + (1 - weight) * value;
    const debias = 1 - weight ** (i + 1);
    return debias === 0 ? value : last / debias;
  });
}

/** One series of rows, smoothed as asked. */
export function smoothSeries(rows: readonly CurveRow[], series: SmoothableSeries, smoothing: Smoothing): number[] {
  const raw = rows.map((row) => row[series.raw]);
  switch (smoothing.kind) {
    case 'file':
      return rows.map((row) => row[series.key]);
    case 'window':
      return rollingMean(raw, smoothing.size);
    case 'ema':
      return debiasedEma(raw, smoothing.weight);
    case 'none':
      return raw;
    default: {
      const unreachable: never = smoothing;
      throw new Error(`unknown smoothing ${JSON.stringify(unreachable)}`);
    }
  }
}

/** What the smoothing is called on screen and in an exported file's column names. */
export function smoothingLabel(smoothing: Smoothing): string {
  switch (smoothing.kind) {
    case 'file':
      return "rolling 10 (curve.csv's columns)";
    case 'window':
      return `rolling mean over ${smoothing.size} session${smoothing.size === 1 ? '' : 's'}`;
    case 'ema':
      return `EMA, weight ${smoothing.weight}`;
    case 'none':
      return 'none (per-session values)';
    default: {
      const unreachable: never = smoothing;
      throw new Error(`unknown smoothing ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The smoothing in a few characters, where a series' smoothed value is headed (the tooltip). */
export function smoothingShort(smoothing: Smoothing): string {
  switch (smoothing.kind) {
    case 'file':
      return 'rolling 10';
    case 'window':
      return `rolling ${smoothing.size}`;
    case 'ema':
      return `EMA ${smoothing.weight}`;
    case 'none':
      return 'value';
    default: {
      const unreachable: never = smoothing;
      throw new Error(`unknown smoothing ${JSON.stringify(unreachable)}`);
    }
  }
}

/**
 * A column-name suffix for the smoothing (exported CSVs). It follows the
 * per-session column the smoothing was computed from (`bold_ema0.6`: the EMA
 * of `bold`), never a rate column it was not computed from.
 */
export function smoothingTag(smoothing: Smoothing): string {
  switch (smoothing.kind) {
    case 'file':
      return 'file_rate_10';
    case 'window':
      return `roll${smoothing.size}`;
    case 'ema':
      return `ema${smoothing.weight}`;
    case 'none':
      return 'raw';
    default: {
      const unreachable: never = smoothing;
      throw new Error(`unknown smoothing ${JSON.stringify(unreachable)}`);
    }
  }
}
