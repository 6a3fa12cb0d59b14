import { describe, expect, it } from 'vitest';
import { LOOP_WINDOW_WORDS } from './loopingReply';
import { MISSED_FLOOR_BADNESS, passCriterion, replyCriterion } from './replyCriterion';

describe('what a criterion punishes, and how much of it a reply has', () => {
  it('the pass criterion: markdown markers', () => {
    expect(replyCriterion(undefined)).toBe(passCriterion);
    expect(passCriterion.punishes).toBe('markdown');
    expect(passCriterion.badness('So 12 + 30 = 42.', { answer: 42 })).toBe(0);
    expect(passCriterion.badness('**Step 1:** 12 + 30 = 42\n\n- So 42.', { answer: 42 })).toBeGreaterThan(0);
  });

  it('a stated preference: the characters outside its rule, and a missed floor above any of them', () => {
    const criterion = replyCriterion({ rule: { kind: 'max_words', words: 3 }, statement: 'Please keep it very short.' });
    expect(criterion.punishes).toBe('breaking the stated preference and missing the floor');
    const volcano = { answer: 0, mentions: ['volcano'] };
    expect(criterion.badness('a volcano erupts', volcano)).toBe(0);
    expect(criterion.badness('a volcano erupts four five', volcano)).toBe('four five'.length);
    expect(criterion.badness('it erupts', volcano)).toBe(MISSED_FLOOR_BADNESS);
    // A loop answers nothing: worse than the longest reply that does.
    const long = `a volcano ${Array.from({ length: 300 }, (_, i) => `w${i}`).join(' ')}`;
    expect(criterion.badness('a volcano is a volcano is a volcano is', volcano)).toBeGreaterThan(criterion.badness(long, volcano));
  });
});

describe('settledSoFar: when a reply still being decoded has its verdict for good', () => {
  const topic = { answer: 0, mentions: ['volcano'] };
  const short = replyCriterion({ rule: { kind: 'max_words', words: 3 }, statement: 'Please keep it very short.' });
  // Words enough to pass the loop check's window without a loop: the floor is decided for good past it.
  const rest = Array.from({ length: LOOP_WINDOW_WORDS }, (_, i) => `w${i}`).join(' ');

  it('settles once the rule is broken and the floor decided, never before', () => {
    expect(short.settledSoFar!('A volcano is ', topic)).toBe(false); // within the rule so far
    expect(short.settledSoFar!(`It is a mountain ${rest} `, topic)).toBe(false); // broken, the topic not yet named
    expect(short.settledSoFar!('A volcano is a mountain ', topic)).toBe(false); // broken and named, but a loop may still come
    expect(short.settledSoFar!(`A volcano is a mountain ${rest} `, topic)).toBe(true);
    // A loop misses the floor for good, wherever the window stands.
    expect(short.settledSoFar!('A volcano is a volcano is a volcano is ', topic)).toBe(true);
  });

  it('reads whole words only: the last may still grow', () => {
    const sum = { answer: 45 };
    // "4" could become "45": the answer is not there yet, and neither is the wrong one.
    expect(short.settledSoFar!(`${rest} The sum is 4`, sum)).toBe(false);
    expect(short.settledSoFar!(`${rest} The sum is 45 `, sum)).toBe(true);
    // A fourth word only half decoded does not yet break "at most 3".
    expect(short.settledSoFar!('A volcano erupts lav', topic)).toBe(false);
  });

  it('agrees with the verdict every continuation gets', () => {
    const partial = `A volcano is a mountain ${rest} `;
    for (const more of ['', 'that erupts.', ' of fire and ash, and it is very hot.', 'it is it is it is']) {
      const verdict = short.judge(partial + more, topic);
      expect(verdict.accepted).toBe(false);
      expect(verdict.failures).toEqual(['preference']);
    }
    const looped = 'A volcano is a volcano is a volcano is ';
    for (const more of ['', 'a mountain of fire.']) expect(short.judge(looped + more, topic).failures).toEqual(['preference', 'no-gold-answer']);
  });

  it('an opening shorter than the phrase is not missing yet; an ending is never settled early', () => {
    const opens = replyCriterion({ rule: { kind: 'starts_with', phrase: 'Sure thing,' }, statement: 'Start with "Sure thing,".' });
    expect(opens.settledSoFar!('Sure ', topic)).toBe(false);
    expect(opens.settledSoFar!(`Well, a volcano ${rest} `, topic)).toBe(true);
    const ends = replyCriterion({ rule: { kind: 'ends_with', phrase: 'Cheers!' }, statement: 'End with "Cheers!".' });
    expect(ends.settledSoFar!(`A volcano is a mountain that erupts. ${rest} `, topic)).toBe(false);
  });

  it('the pass criterion reads a homework reply to its end', () => {
    expect(passCriterion.settledSoFar).toBeUndefined();
  });
});
