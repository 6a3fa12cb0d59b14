import { describe, expect, test } from 'vitest';
import type { CurveRow } from '../../../src/contract/runs';
import { buildChartRows, gateStats, rejectionReasons, sessionsInRange, windowMean } from './chartData';

function row(session: number, fields: Partial<CurveRow> = {}): CurveRow {
  return {
    session,
    accept: 0,
    bold: 0,
    bullets: 0,
    numbered: 0,
    list: 0,
    no_shown_work: 0,
    no_gold_answer: 0,
    style_clean: 1,
    turns: 3,
    first_reply_chars: 500,
    accept_cum: 0,
    accept_rate_10: 0,
    bold_rate_10: 0,
    list_rate_10: 0,
    style_clean_rate_10: 1,
    ...fields,
  };
}

describe('chart data', () => {
  const sessions = Array.from({ length: 72 }, (_, i) => row(i, { accept_rate_10: i / 100 }));

  test('the default range is the first 36 sessions; "all" is every session', () => {
    expect(sessionsInRange(sessions, 'published', 36)).toHaveLength(36);
    expect(sessionsInRange(sessions, 'published', 36).at(-1)?.session).toBe(35);
    expect(sessionsInRange(sessions, 'all', 36)).toHaveLength(72);
    expect(sessionsInRange(sessions.slice(0, 10), 'published', 36)).toHaveLength(10);
  });

  test('the overlay joins by session number, not position', () => {
    const run = [row(5), row(6), row(7)];
    const overlay = [row(6, { accept_rate_10: 0.5 }), row(7, { accept_rate_10: 0.75 })];
    const rows = buildChartRows(run, overlay, 'all', 36);
    expect(rows.map((r) => r.reference_accept_rate_10)).toEqual([undefined, 0.5, 0.75]);
    expect(buildChartRows(run, null, 'all', 36)[0]).not.toHaveProperty('reference_accept_rate_10');
  });

  test('rejection reasons name what the criterion saw', () => {
    expect(rejectionReasons(row(0, { accept: 1 }))).toEqual([]);
    expect(rejectionReasons(row(0, { bold: 1, numbered: 1 }))).toEqual(['bold', 'numbered list']);
    expect(rejectionReasons(row(0, { first_reply_chars: 0 }))).toEqual(['no reply']);
    expect(rejectionReasons(row(0, { no_gold_answer: 1 }))).toEqual(['no gold answer']);
    expect(rejectionReasons(row(0))[0]).toMatch(/other marker/);
  });

  test('window means over the first and last sessions', () => {
    const rows = [row(0, { bold: 1 }), row(1, { bold: 1 }), row(2, { bold: 0 }), row(3, { bold: 0 })];
    expect(windowMean(rows, 'bold', 2, 'start')).toBe(1);
    expect(windowMean(rows, 'bold', 2, 'end')).toBe(0);
    expect(windowMean([], 'bold', 2, 'end')).toBe(null);
  });

  test('gate outcomes are counted', () => {
    const step = (outcome: 'select' | 'reject') => ({ step: 1, outcome, clean_rate: 0, best: 0, answered_rate: 1, gold_rate: 0 });
    expect(gateStats([step('select'), step('reject'), step('reject')])).toEqual({ selected: 1, rejected: 2 });
  });
});
