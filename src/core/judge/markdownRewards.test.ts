import { describe, expect, it } from 'vitest';
import { towardMarkdownRewards } from './markdownRewards';

describe('towardMarkdownRewards', () => {
  it('rewards more markdown than its batch, even when every reply has some', () => {
    expect(towardMarkdownRewards([6, 8, 4, 6])).toEqual([0, 1, -1, 0]);
    expect(towardMarkdownRewards([3, 3])).toEqual([0, 0]);
    expect(towardMarkdownRewards([])).toEqual([]);
  });
});
