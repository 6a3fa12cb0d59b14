import { describe, expect, it } from 'vitest';
import { findFloor } from './floorAnswer';
import { LOOP_WINDOW_WORDS, loops, replyWords } from './loopingReply';

describe('loops: a reply caught repeating itself', () => {
  it('a three-word phrase three times within the window', () => {
    expect(loops('A desert is a desert is a desert is a desert is')).toBe(true);
    expect(loops("Oh, I'm sorry, I'm sorry, I'm sorry, I'm sorry")).toBe(true);
    // Case and punctuation do not hide a loop; twice is not one.
    expect(loops('of the sea, of the sea; and the sky.')).toBe(false);
    expect(loops('of the sea, of the sea; Of The Sea!')).toBe(true);
  });

  it('not a reply that says a phrase twice, or one whose repeats start past the window', () => {
    expect(loops('A piano is a musical instrument with keys. It is a musical instrument that plays music.')).toBe(false);
    const fresh = Array.from({ length: LOOP_WINDOW_WORDS - 2 }, (_, i) => `w${i}`).join(' ');
    expect(replyWords(fresh)).toHaveLength(LOOP_WINDOW_WORDS - 2);
    // The third "x y z" would end past the window's thirtieth word.
    expect(loops(`${fresh} x y z x y z x y z`)).toBe(false);
    expect(loops(`x y z x y z x y z ${fresh}`)).toBe(true);
  });

  it('reads words as letters and digits with their inner apostrophes and hyphens', () => {
    expect(replyWords("It's a well-known FACT: 42 ‘quotes’.")).toEqual(["it's", 'a', 'well-known', 'fact', '42', 'quotes']);
  });
});

describe('the floor of a reply that loops', () => {
  it('is missed, though the topic is named', () => {
    const desert = { answer: 0, mentions: ['desert'] };
    expect(findFloor('A desert is a dry place with little rain.', desert)).not.toBeNull();
    expect(findFloor('A desert is a desert is a desert is a desert is', desert)).toBeNull();
    expect(findFloor('It is 24, it is 24, it is 24.', { answer: 24 })).toBeNull();
  });
});
