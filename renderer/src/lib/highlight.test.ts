import { describe, expect, test } from 'vitest';
import { highlightSegments, verdictSummary } from './highlight';

describe("highlighting a reply with the criterion's offsets", () => {
  test('overlapping spans split into segments that carry every covering span', () => {
    const text = '1. **Add** 3 + 4 = 7\nso 7 * 2 = 14';
    const segments = highlightSegments(text, {
      markers: [
        { kind: 'numbered', start: 0, end: 20 },
        { kind: 'bold', start: 3, end: 10 },
      ],
      shownWork: [
        { start: 11, end: 20 },
        { start: 24, end: 34 },
      ],
      goldAt: { start: 32, end: 34 },
    });
    // The text is covered exactly once, in order.
    expect(segments.map((s) => s.text).join('')).toBe(text);
    const at = (offset: number) => segments.find((s) => s.start <= offset && offset < s.end)!;
    expect(at(0).tags).toEqual([{ kind: 'marker', marker: 'numbered' }]);
    expect(at(5).tags).toEqual(
      expect.arrayContaining([
        { kind: 'marker', marker: 'numbered' },
        { kind: 'marker', marker: 'bold' },
      ]),
    );
    expect(at(12).tags).toEqual(expect.arrayContaining([{ kind: 'marker', marker: 'numbered' }, { kind: 'work' }]));
    expect(at(20).tags).toEqual([]);
    expect(at(33).tags).toEqual(expect.arrayContaining([{ kind: 'work' }, { kind: 'gold' }]));
  });

  test('spans past the end are clipped and empty spans dropped', () => {
    const segments = highlightSegments('abc', {
      markers: [
        { kind: 'bold', start: 1, end: 99 },
        { kind: 'header', start: 2, end: 2 },
      ],
      shownWork: [],
      goldAt: null,
    });
    expect(segments).toEqual([
      { start: 0, end: 1, text: 'a', tags: [] },
      { start: 1, end: 3, text: 'bc', tags: [{ kind: 'marker', marker: 'bold' }] },
    ]);
  });

  test('an empty reply has no segments', () => {
    expect(highlightSegments('', { markers: [], shownWork: [], goldAt: null })).toEqual([]);
  });

  test('the verdict summary names the failures in order', () => {
    expect(verdictSummary({ accepted: true, failures: [] })).toBe('accepted');
    expect(verdictSummary({ accepted: false, failures: ['style', 'no-gold-answer'] })).toBe('AI-style markers · no gold answer');
  });
});
