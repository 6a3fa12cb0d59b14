// The learning curve of a run: one row per session, exactly Reef's
// `curve.csv` columns in Reef's order (docs/design.md, Curve metrics). The per-session columns come
// from the verdict on the session's first reply; the rest (accept_cum and the
// rolling rates) are derived from the sessions before it.

import { hasMarker, type Verdict } from '../judge/criterion';

/** Reef's curve.csv columns, in Reef's order. */
export const CURVE_COLUMNS = [
  'session',
  'accept',
  'bold',
  'bullets',
  'numbered',
  'list',
  'no_shown_work',
  'no_gold_answer',
  'style_clean',
  'turns',
  'first_reply_chars',
  'accept_cum',
  'accept_rate_10',
  'bold_rate_10',
  'list_rate_10',
  'style_clean_rate_10',
] as const;
export type CurveColumn = (typeof CURVE_COLUMNS)[number];

/** The rolling rates average the last this-many sessions (fewer at the start). */
export const ROLLING_WINDOW = 10;
/** Adaptation: this many accepted sessions in a row. */
export const ADAPTATION_RUN = 3;

export type Bit = 0 | 1;

/** What a session observed; everything else in a curve row follows from these. */
export type SessionObservation = {
  /** The session's index in the run (Reef counts from 0). */
  session: number;
  accept: Bit;
  bold: Bit;
  bullets: Bit;
  numbered: Bit;
  no_shown_work: Bit;
  no_gold_answer: Bit;
  /** Assistant turns the session took (0 when the agent never answered). */
  turns: number;
  /** Length of the first reply in Unicode code points (Python's len). */
  first_reply_chars: number;
};

export type CurveRow = SessionObservation & {
  list: Bit;
  style_clean: Bit;
  accept_cum: number;
  accept_rate_10: number;
  bold_rate_10: number;
  list_rate_10: number;
  style_clean_rate_10: number;
};

// The columns that curveRows computes rather than reads.
export const DERIVED_COLUMNS = [
  'list',
  'style_clean',
  'accept_cum',
  'accept_rate_10',
  'bold_rate_10',
  'list_rate_10',
  'style_clean_rate_10',
] as const satisfies readonly CurveColumn[];

const bit = (b: boolean): Bit => (b ? 1 : 0);

/** A session's observation from the verdict on its first reply. */
export function observeSession(args: { session: number; firstReply: string; verdict: Verdict; turns: number }): SessionObservation {
  const { verdict } = args;
  return {
    session: args.session,
    accept: bit(verdict.accepted),
    bold: bit(hasMarker(verdict, 'bold')),
    bullets: bit(hasMarker(verdict, 'bullet')),
    numbered: bit(hasMarker(verdict, 'numbered')),
    no_shown_work: bit(verdict.failures.includes('no-shown-work')),
    no_gold_answer: bit(verdict.failures.includes('no-gold-answer')),
    turns: args.turns,
    // Code points, not UTF-16 units: Reef measured with Python's len().
    first_reply_chars: [...args.firstReply].length,
  };
}

function mean(values: readonly number[]): number {
  // Integers summed exactly, then one division: the same double Python's
  // sum(window) / len(window) gives, so the written rates match Reef's.
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** Derives the full curve from per-session observations (contiguous sessions, in order). */
export function curveRows(observations: readonly SessionObservation[]): CurveRow[] {
  const first = observations[0];
  observations.forEach((o, i) => {
    if (first && o.session !== first.session + i) {
      throw new Error(`sessions must be contiguous and in order: position ${i} holds session ${o.session}, expected ${first.session + i}`);
    }
  });
  const rows: CurveRow[] = [];
  let acceptCum = 0;
  for (const o of observations) {
    acceptCum += o.accept;
    const list = bit(o.bullets === 1 || o.numbered === 1);
    const styleClean = bit(o.bold === 0 && o.bullets === 0 && o.numbered === 0);
    const row: CurveRow = {
      ...o,
      list,
      style_clean: styleClean,
      accept_cum: acceptCum,
      accept_rate_10: 0,
      bold_rate_10: 0,
      list_rate_10: 0,
      style_clean_rate_10: 0,
    };
    rows.push(row);
    const window = rows.slice(-ROLLING_WINDOW);
    row.accept_rate_10 = mean(window.map((r) => r.accept));
    row.bold_rate_10 = mean(window.map((r) => r.bold));
    row.list_rate_10 = mean(window.map((r) => r.list));
    row.style_clean_rate_10 = mean(window.map((r) => r.style_clean));
  }
  return rows;
}

/** The session that starts the first run of three accepted sessions, or null if none. */
export function sessionsToAdaptation(rows: readonly Pick<SessionObservation, 'session' | 'accept'>[]): number | null {
  let streak = 0;
  for (let i = 0; i < rows.length; i++) {
    streak = rows[i]?.accept === 1 ? streak + 1 : 0;
    if (streak === ADAPTATION_RUN) return rows[i - ADAPTATION_RUN + 1]?.session ?? null;
  }
  return null;
}
