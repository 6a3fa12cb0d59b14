import { describe, expect, it } from 'vitest';
import { findAnswer, findMention, numberWord } from './floorAnswer';

describe('findAnswer', () => {
  it('finds the number on its own, as the pass criterion finds the gold', () => {
    expect(findAnswer('There are 24 hours.', 24)).toEqual({ start: 10, end: 12 });
    expect(findAnswer('About 1,024 of them', 1024)).toEqual({ start: 6, end: 11 });
    expect(findAnswer('It is 124 or 2.4', 24)).toBeNull();
  });

  it('finds a whole number up to a hundred as its word, in any case, hyphenated or not', () => {
    expect(findAnswer('a spider has eight legs', 8)).toEqual({ start: 13, end: 18 });
    expect(findAnswer('Twenty four hours', 24)).toEqual({ start: 0, end: 11 });
    expect(findAnswer('twenty-four hours', 24)).toEqual({ start: 0, end: 11 });
    expect(findAnswer('water freezes at zero degrees', 0)).not.toBeNull();
    // Inside a longer word or number word it is not the answer.
    expect(findAnswer('seventeen', 7)).toBeNull();
    expect(findAnswer('twenty-four', 20)).toBeNull();
    expect(findAnswer('someone', 1)).toBeNull();
  });

  it('has words for 0–100 only', () => {
    expect(numberWord(100)).toBe('one hundred');
    expect(numberWord(42)).toBe('forty-two');
    expect(numberWord(101)).toBeUndefined();
    expect(numberWord(2.5)).toBeUndefined();
    expect(findAnswer('three hundred sixty-five', 365)).toBeNull();
  });
});

describe('findMention', () => {
  it('finds the first of the words at the start of a word, in any case, and its longer forms', () => {
    expect(findMention('Lava flows from a volcano.', ['volcano', 'lava'])).toEqual({ start: 0, end: 4 });
    expect(findMention('VOLCANOES erupt', ['volcano'])).toEqual({ start: 0, end: 7 });
    expect(findMention('Plants use photosynthesis', ['photosynth'])).toEqual({ start: 11, end: 21 });
  });

  it('never inside a word, and null when none is mentioned', () => {
    expect(findMention('the sunlight', ['light'])).toBeNull();
    expect(findMention('I cannot help with that.', ['volcano', 'lava'])).toBeNull();
    expect(findMention('', ['volcano'])).toBeNull();
  });

  it('reads the words as text, never as patterns', () => {
    expect(findMention('a.b', ['a+b'])).toBeNull();
    expect(findMention('x a+b', ['a+b'])).toEqual({ start: 2, end: 5 });
  });
});
