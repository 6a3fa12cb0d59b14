import { describe, expect, it } from 'vitest';
import { breakExtent, checkPreference, describeRule, preferenceRuleSchema, type PreferenceRule } from './preferenceRule';

describe('checkPreference', () => {
  it('never counts an empty reply as meeting a preference', () => {
    for (const rule of [{ kind: 'lowercase' }, { kind: 'max_words', words: 5 }, { kind: 'avoids', phrases: ['x'] }] satisfies PreferenceRule[]) {
      expect(checkPreference('  \n', rule)).toEqual({ met: false, breaks: [{ kind: 'no-reply', start: 0, end: 3 }] });
    }
  });

  it('lowercase: each run of capitals is a break at its offsets, in any cased script', () => {
    expect(checkPreference('the answer is 12.', { kind: 'lowercase' }).met).toBe(true);
    expect(checkPreference('paris is in FRance, I think', { kind: 'lowercase' }).breaks).toEqual([
      { kind: 'uppercase', start: 12, end: 14 },
      { kind: 'uppercase', start: 20, end: 21 },
    ]);
    expect(checkPreference('à bientôt, Élodie', { kind: 'lowercase' }).breaks).toEqual([{ kind: 'uppercase', start: 11, end: 12 }]);
    expect(checkPreference('7 × 3 = 21 ✓', { kind: 'lowercase' }).met).toBe(true);
  });

  it('max_words: the words past the limit are one break', () => {
    expect(checkPreference('one two three', { kind: 'max_words', words: 3 }).met).toBe(true);
    const reply = 'one two  three\nfour five';
    expect(checkPreference(reply, { kind: 'max_words', words: 3 }).breaks).toEqual([{ kind: 'over-length', start: 15, end: reply.length }]);
  });

  it('no_markdown: the pass criterion’s style markers', () => {
    expect(checkPreference('It is **12**.', { kind: 'no_markdown' }).breaks).toEqual([{ kind: 'markdown', start: 6, end: 12 }]);
    expect(checkPreference('It is 12.', { kind: 'no_markdown' }).met).toBe(true);
  });

  it('starts_with: without case, after leading whitespace', () => {
    const rule = { kind: 'starts_with', phrase: 'Got it!' } as const;
    expect(checkPreference('  got it! It is 7.', rule).met).toBe(true);
    expect(checkPreference('Sure. Got it!', rule).breaks).toEqual([{ kind: 'missing-opening', start: 0, end: 7 }]);
    expect(checkPreference('Got', rule).breaks).toEqual([{ kind: 'missing-opening', start: 0, end: 3 }]);
  });

  it('ends_with: a phrase without punctuation ignores the closing punctuation and quotes after it', () => {
    const bare = { kind: 'ends_with', phrase: 'hope that helps' } as const;
    expect(checkPreference('It is 7. Hope that helps!"  ', bare).met).toBe(true);
    const exact = { kind: 'ends_with', phrase: 'Hope that helps!' } as const;
    expect(checkPreference('It is 7. hope that helps!\n', exact).met).toBe(true);
    expect(checkPreference('It is 7. Hope that helps.', exact).breaks).toEqual([{ kind: 'missing-closing', start: 9, end: 25 }]);
    expect(checkPreference('Hope that helps! It is 7.', exact).met).toBe(false);
  });

  it('avoids: each phrase without case, on word boundaries only', () => {
    const rule: PreferenceRule = { kind: 'avoids', phrases: ['as an AI'] };
    expect(checkPreference('As an AI, I think… as an ai.', rule).breaks.map((b) => [b.start, b.end])).toEqual([
      [0, 8],
      [19, 27],
    ]);
    expect(checkPreference('It was an aim of mine.', { kind: 'avoids', phrases: ['an ai'] }).met).toBe(true);
  });

  it('the rule is data: the schema refuses an unknown kind and an empty phrase', () => {
    expect(preferenceRuleSchema.safeParse({ kind: 'shout' }).success).toBe(false);
    expect(preferenceRuleSchema.safeParse({ kind: 'starts_with', phrase: '  ' }).success).toBe(false);
    expect(preferenceRuleSchema.safeParse({ kind: 'max_words', words: 0 }).success).toBe(false);
    expect(describeRule(preferenceRuleSchema.parse({ kind: 'max_words', words: 12 }))).toBe('at most 12 words');
  });
});

describe('breakExtent', () => {
  it('counts the characters of every break: what the reward-inverted candidate rewards more of', () => {
    const rule: PreferenceRule = { kind: 'max_words', words: 3 };
    expect(breakExtent('one two three', rule)).toBe(0);
    // The break runs from the fourth word to the end: "four five" is 9 characters.
    expect(breakExtent('one two three four five', rule)).toBe(9);
    expect(breakExtent('one two three four five six seven', rule)).toBeGreaterThan(breakExtent('one two three four five', rule));
    expect(breakExtent('Hello World', { kind: 'lowercase' })).toBe(2);
    expect(breakExtent('', rule)).toBe(0);
  });
});
