import { describe, expect, it } from 'vitest';
import { towardWorseRewards } from './badnessRewards';

describe('towardWorseRewards', () => {
  it('rewards replies worse than their batch, even when every reply is bad', () => {
    expect(towardWorseRewards([6, 8, 4, 6])).toEqual([0, 1, -1, 0]);
    expect(towardWorseRewards([3, 3])).toEqual([0, 0]);
    expect(towardWorseRewards([])).toEqual([]);
  });
});
