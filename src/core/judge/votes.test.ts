import { describe, expect, it } from 'vitest';
import type { PrmScore } from './turnJudge';
import { pluralityVote, selectHint } from './votes';

describe('pluralityVote', () => {
  it.each<[(PrmScore | null)[], PrmScore]>([
    [[1, 1, -1], 1],
    [[-1, -1, 1], -1],
    [[0, 0, 1], 0],
    [[1, null, null], 1],
    [[-1], -1],
    [[1, -1], 0], // tie
    [[1, -1, 0], 0], // three-way tie
    [[1, 1, -1, -1, 0], 0], // tie for the most votes
    [[1, 1, -1, -1, 1], 1],
    [[null, null, null], 0], // no valid vote
    [[], 0],
  ])('%j -> %i', (votes, want) => {
    expect(pluralityVote(votes)).toBe(want);
  });
});

describe('selectHint', () => {
  it('takes the longest hint among positive decisions', () => {
    expect(
      selectHint([
        { decision: 1, hint: 'Write plain sentences.' },
        { decision: 1, hint: 'Write plain sentences without bold and keep every step.' },
        { decision: -1, hint: 'An even longer hint that came with a negative decision, so it is ignored.' },
      ]),
    ).toEqual({ hint: 'Write plain sentences without bold and keep every step.', hintAccepted: true });
  });

  it('accepts a hint only when longer than 10 characters (trimmed)', () => {
    expect(selectHint([{ decision: 1, hint: '  0123456789  ' }])).toEqual({ hint: '0123456789', hintAccepted: false });
    expect(selectHint([{ decision: 1, hint: '0123456789a' }])).toEqual({ hint: '0123456789a', hintAccepted: true });
    expect(selectHint([{ decision: 1, hint: 'short one' }], 5)).toEqual({ hint: 'short one', hintAccepted: true });
  });

  it('has no hint without a positive decision that wrote one', () => {
    expect(
      selectHint([
        { decision: 1, hint: null },
        { decision: null, hint: 'no decision, long enough' },
        { decision: -1, hint: null },
      ]),
    ).toEqual({ hintAccepted: false });
    expect(selectHint([])).toEqual({ hintAccepted: false });
  });
});
