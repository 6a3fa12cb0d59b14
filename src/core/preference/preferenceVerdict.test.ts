import { describe, expect, it } from 'vitest';
import { preferenceVerdict } from './preferenceVerdict';

const volcano = { answer: 0, mentions: ['volcano', 'lava', 'magma'] };
const brief = { kind: 'max_words', words: 8 } as const;

describe('preferenceVerdict', () => {
  it('accepts a reply that meets the rule and mentions the topic', () => {
    const v = preferenceVerdict('A volcano is a mountain that erupts lava.', volcano, brief);
    expect(v).toMatchObject({ accepted: true, reason: null, failures: [], goldAt: { start: 2, end: 9 } });
  });

  it('a broken rule is `preference`, a missed floor `no-gold-answer`, both listed in that order', () => {
    expect(preferenceVerdict('A volcano is a big mountain that can erupt hot lava.', volcano, brief).failures).toEqual(['preference']);
    expect(preferenceVerdict('ok.', volcano, brief).failures).toEqual(['no-gold-answer']);
    expect(preferenceVerdict('I am not sure what you are asking me about here.', volcano, brief)).toMatchObject({
      accepted: false,
      reason: 'preference',
      failures: ['preference', 'no-gold-answer'],
    });
  });

  it('a question with a number for an answer has the number as its floor', () => {
    expect(preferenceVerdict('there are seven days in a week', { answer: 7 }, { kind: 'lowercase' }).accepted).toBe(true);
    expect(preferenceVerdict('there are many days', { answer: 7 }, { kind: 'lowercase' }).failures).toEqual(['no-gold-answer']);
  });

  it('an empty reply is `no-reply` only', () => {
    expect(preferenceVerdict(' \n', volcano, brief)).toMatchObject({ accepted: false, reason: 'no-reply', failures: ['no-reply'] });
  });
});
