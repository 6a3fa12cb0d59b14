import type { YRange } from '../lib/chartData';
import { PALETTE } from '../lib/palette';

/** Shared geometry so the curve and the accept strip line up session for session. */
export const CHART_MARGIN = { top: 12, right: 28, bottom: 4, left: 8 } as const;
export const Y_AXIS_WIDTH = 52;
export const TICK_STYLE = { fill: PALETTE.axis, fontSize: 12 } as const;

/** X ticks every 5 sessions (plus the first); every session when there are a dozen or fewer (a short run). */
export function sessionTicks(sessions: readonly number[]): number[] {
  if (sessions.length <= 12) return [...sessions];
  return sessions.filter((session, index) => index === 0 || session % 5 === 0);
}

/** Five evenly spaced y ticks over a range of rates. */
export function yTicksOf(range: YRange): number[] {
  return [0, 1, 2, 3, 4].map((i) => range.min + ((range.max - range.min) * i) / 4);
}

/** A y tick as a percentage, with a decimal only where the range is fine enough to need one. */
export function percentTick(value: number): string {
  const percent = Math.round(value * 1000) / 10;
  return `${Number.isInteger(percent) ? percent : percent.toFixed(1)}%`;
}

/** A y range as the charts' data attribute spells it: "0-100". */
export const yRangeTag = (range: YRange): string => `${Math.round(range.min * 1000) / 10}-${Math.round(range.max * 1000) / 10}`;
