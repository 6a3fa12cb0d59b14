import { describe, expect, test } from 'vitest';
import type { CandidateView, RoundView } from '../../../src/contract/labRuns';
import { lifecycleSteps, stateLabel } from './lifecycle';

const pointer = { version: 'base', sha256: 'a'.repeat(64) };
const metrics = { n: 8, pass_rate: 0.5, clean_rate: 0.5, gold_rate: 0.75, answered_rate: 1, mean_violations: 1, mean_chars: 300 };
const round = (n: number, passed: boolean): RoundView => ({
  round: n,
  seed: n,
  passed,
  failing: passed ? [] : ['gold_rate 0 < floor 0.5'],
  candidate: metrics,
  serving: { ...metrics, version: 'base' },
  checks: [],
});
const candidate = (over: Partial<CandidateView>): CandidateView => ({
  id: 'c1',
  version: 'v1-aaaaaaaa',
  sha256: 'b'.repeat(64),
  source: { kind: 'trainer', step: 1 },
  state: 'staged',
  probingRound: null,
  passedRounds: 0,
  roundsRequired: 3,
  reason: null,
  supersededBy: null,
  confirmedBy: null,
  updateNorm: 1,
  maxUpdateNorm: 40,
  rounds: [],
  stagedAt: '2026-12-02T17:00:00.000Z',
  verifiedAt: '2026-12-02T17:00:01.000Z',
  decidedAt: null,
  stagedAfterSessions: 5,
  servingAtStage: pointer,
  servingAtDecision: null,
  heldForPerson: false,
  ...over,
});
const statuses = (c: CandidateView) => lifecycleSteps(c).map((s) => `${s.key}:${s.status}`);

describe("a candidate's lifecycle as steps", () => {
  test('probing round 2 after one passing round', () => {
    expect(statuses(candidate({ state: 'probing', probingRound: 2, passedRounds: 1, rounds: [round(1, true)] }))).toEqual([
      'staged:done',
      'verified:done',
      'round-1:done',
      'round-2:current',
      'round-3:pending',
      'awaiting-confirm:pending',
      'promoted:pending',
    ]);
  });

  test('rejected at verify: the probes are never reached', () => {
    const c = candidate({
      state: 'rejected',
      verifiedAt: null,
      reason: { code: 'non-finite', detail: 'NaN', metric: null },
      source: { kind: 'inject', badKind: 'nan-inf' },
    });
    expect(statuses(c)).toEqual([
      'staged:done',
      'verified:failed',
      'round-1:skipped',
      'round-2:skipped',
      'round-3:skipped',
      'awaiting-confirm:skipped',
      'promoted:skipped',
    ]);
    expect(stateLabel(c)).toBe('rejected (non-finite)');
  });

  test('rejected by a failing second round', () => {
    const c = candidate({
      state: 'rejected',
      passedRounds: 1,
      rounds: [round(1, true), round(2, false)],
      reason: { code: 'regression', detail: 'round 2: …', metric: 'gold_rate' },
    });
    expect(statuses(c)).toEqual([
      'staged:done',
      'verified:done',
      'round-1:done',
      'round-2:failed',
      'round-3:skipped',
      'awaiting-confirm:skipped',
      'promoted:skipped',
    ]);
  });

  test('awaiting confirmation, then rejected by a person', () => {
    const rounds = [round(1, true), round(2, true), round(3, true)];
    expect(statuses(candidate({ state: 'awaiting-confirm', passedRounds: 3, rounds }))).toEqual([
      'staged:done',
      'verified:done',
      'round-1:done',
      'round-2:done',
      'round-3:done',
      'awaiting-confirm:current',
      'promoted:pending',
    ]);
    expect(statuses(candidate({ state: 'rejected', passedRounds: 3, rounds, reason: { code: 'person', detail: 'no', metric: null } }))).toEqual([
      'staged:done',
      'verified:done',
      'round-1:done',
      'round-2:done',
      'round-3:done',
      'awaiting-confirm:failed',
      'promoted:skipped',
    ]);
  });

  test('promoted', () => {
    const rounds = [round(1, true), round(2, true), round(3, true)];
    expect(statuses(candidate({ state: 'promoted', passedRounds: 3, rounds, confirmedBy: 'person' })).every((s) => s.endsWith(':done'))).toBe(true);
  });

  test('superseded before probing', () => {
    const c = candidate({ state: 'superseded', verifiedAt: null, supersededBy: 'c2' });
    expect(statuses(c).slice(0, 3)).toEqual(['staged:done', 'verified:skipped', 'round-1:skipped']);
    expect(stateLabel(c)).toBe('superseded by c2');
  });
});
