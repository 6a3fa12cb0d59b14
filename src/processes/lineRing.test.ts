import { describe, expect, it } from 'vitest';
import { LineRing } from './lineRing';

describe('LineRing', () => {
  it('keeps everything, oldest first, until it is full', () => {
    const ring = new LineRing<string>(3);
    expect(ring.toArray()).toEqual([]);
    ring.push('a');
    ring.push('b');
    expect(ring.toArray()).toEqual(['a', 'b']);
    expect(ring.size).toBe(2);
  });

  it('keeps only the newest `capacity` items once it wraps, in order', () => {
    const ring = new LineRing<number>(3);
    for (let i = 1; i <= 10; i += 1) ring.push(i);
    expect(ring.toArray()).toEqual([8, 9, 10]);
    expect(ring.size).toBe(3);
    ring.push(11);
    expect(ring.toArray()).toEqual([9, 10, 11]);
  });

  it('is exact at every fill level across many wraps', () => {
    const ring = new LineRing<number>(5);
    const all: number[] = [];
    for (let i = 0; i < 23; i += 1) {
      ring.push(i);
      all.push(i);
      expect(ring.toArray()).toEqual(all.slice(-5));
    }
  });

  it('gives the newest n items', () => {
    const ring = new LineRing<string>(4);
    for (const s of ['a', 'b', 'c', 'd', 'e']) ring.push(s);
    expect(ring.last(2)).toEqual(['d', 'e']);
    expect(ring.last(10)).toEqual(['b', 'c', 'd', 'e']);
    expect(ring.last(0)).toEqual([]);
  });

  it('refuses a capacity below one', () => {
    expect(() => new LineRing(0)).toThrow(/at least one/);
    expect(() => new LineRing(1.5)).toThrow(/at least one/);
  });
});
