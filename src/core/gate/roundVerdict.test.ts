import { describe, expect, it } from 'vitest';
import type { ProbeMetrics } from './probeMetrics';
import { judgeRound } from './roundVerdict';

const m = (over: Partial<ProbeMetrics>): ProbeMetrics => ({
  n: 8,
  pass_rate: 0,
  clean_rate: 0,
  gold_rate: 0.875,
  answered_rate: 1,
  mean_violations: 3,
  mean_chars: 400,
  ...over,
});
const margins = { pass_rate: 0.125, gold_rate: 0.125, answered_rate: 0, mean_violations: 0.25 };

describe('round verdict', () => {
  it('passes exactly at the margin and fails one reply beyond it', () => {
    expect(judgeRound(m({ gold_rate: 0.75 }), m({}), margins).passed).toBe(true);
    const r = judgeRound(m({ gold_rate: 0.625 }), m({}), margins);
    expect(r).toMatchObject({ passed: false, metrics: ['gold_rate'] });
    expect(r.failing[0]).toMatch(/gold_rate 0.625 < serving 0.875/);
  });

  it('never gates on style alone: a cleaner candidate that lost correctness fails', () => {
    const cleaner = m({ clean_rate: 1, mean_violations: 0, gold_rate: 0.25 });
    expect(judgeRound(cleaner, m({}), margins)).toMatchObject({ passed: false, metrics: ['gold_rate'] });
  });

  it('floor effect: with serving failing every reply on style, a truncating candidate still fails on answered', () => {
    const truncating = m({ answered_rate: 0.5, mean_violations: 2 });
    expect(judgeRound(truncating, m({}), margins)).toMatchObject({ passed: false, metrics: ['answered_rate'] });
  });

  it('absolute floors reject garbage even when serving is garbage too', () => {
    const garbage = m({ gold_rate: 0, answered_rate: 0, mean_violations: 0 });
    expect(judgeRound(garbage, garbage, margins).passed).toBe(true); // no regression against garbage…
    const floored = judgeRound(garbage, garbage, margins, { gold_rate: 0.5, answered_rate: 0.75 });
    expect(floored).toMatchObject({ passed: false, metrics: ['gold_rate', 'answered_rate'] }); // …but not above the floor
  });

  it('more style markers than serving plus the margin fail', () => {
    expect(judgeRound(m({ mean_violations: 3.375 }), m({}), margins)).toMatchObject({ passed: false, metrics: ['mean_violations'] });
    expect(judgeRound(m({ mean_violations: 3.25 }), m({}), margins).passed).toBe(true);
  });
});
