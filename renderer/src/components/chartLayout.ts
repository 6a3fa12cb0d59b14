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
