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

describe('settledSoFar: when a reply still being decoded has its verdict for good', () => {
  const topic = { answer: 0, mentions: ['volcano'] };
  const short = replyCriterion({ rule: { kind: 'max_words', words: 3 }, statement: 'Please keep it very short.' });

  it('settles once the rule is broken and the floor met, never before', () => {
    expect(short.settledSoFar!('A volcano is ', topic)).toBe(false); // within the rule so far
    expect(short.settledSoFar!('It is a mountain that ', topic)).toBe(false); // broken, the topic not yet named
    expect(short.settledSoFar!('A volcano is a mountain ', topic)).toBe(true);
  });

  it('reads whole words only: the last may still grow', () => {
    const sum = { answer: 45 };
    // "4" could become "45": the answer is not there yet, and neither is the wrong one.
    expect(short.settledSoFar!('The sum is 4', sum)).toBe(false);
    expect(short.settledSoFar!('The sum is 45 ', sum)).toBe(true);
    // A fourth word only half decoded does not yet break "at most 3".
    expect(short.settledSoFar!('A volcano erupts lav', topic)).toBe(false);
  });

  it('agrees with the verdict every continuation gets', () => {
    const partial = 'A volcano is a mountain ';
    for (const rest of ['', 'that erupts.', ' of fire and ash, and it is very hot.']) {
      const verdict = short.judge(partial + rest, topic);
      expect(verdict.accepted).toBe(false);
      expect(verdict.failures).toEqual(['preference']);
    }
  });

  it('an opening shorter than the phrase is not missing yet; an ending is never settled early', () => {
    const opens = replyCriterion({ rule: { kind: 'starts_with', phrase: 'Sure thing,' }, statement: 'Start with "Sure thing,".' });
    expect(opens.settledSoFar!('Sure ', topic)).toBe(false);
    expect(opens.settledSoFar!('Well, a volcano ', topic)).toBe(true);
    const ends = replyCriterion({ rule: { kind: 'ends_with', phrase: 'Cheers!' }, statement: 'End with "Cheers!".' });
    expect(ends.settledSoFar!('A volcano is a mountain that erupts. ', topic)).toBe(false);
  });

  it('the pass criterion reads a homework reply to its end', () => {
    expect(passCriterion.settledSoFar).toBeUndefined();
  });
});
