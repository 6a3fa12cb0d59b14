import { describe, expect, it } from 'vitest';
import { passCriterion, replyCriterion } from './replyCriterion';

describe('what a criterion punishes, and how much of it a reply has', () => {
  it('the pass criterion: markdown markers', () => {
    expect(replyCriterion(undefined)).toBe(passCriterion);
    expect(passCriterion.punishes).toBe('markdown');
    expect(passCriterion.badness('So 12 + 30 = 42.', { answer: 42 })).toBe(0);
    expect(passCriterion.badness('**Step 1:** 12 + 30 = 42\n\n- So 42.', { answer: 42 })).toBeGreaterThan(0);
  });

  it('a stated preference: the characters outside its rule', () => {
    const criterion = replyCriterion({ rule: { kind: 'max_words', words: 3 }, statement: 'Please keep it very short.' });
    expect(criterion.punishes).toBe('breaking the stated preference');
    expect(criterion.badness('one two three', { answer: 0 })).toBe(0);
    expect(criterion.badness('one two three four five', { answer: 0 })).toBe('four five'.length);
  });
});
