import { describe, expect, test } from 'vitest';
import { createFrameBatcher } from './frameBatcher';

describe('frame batcher', () => {
  test('a burst becomes one flush per frame, in order', () => {
    const frames: (() => void)[] = [];
    const flushes: number[][] = [];
    const push = createFrameBatcher<number>(
      (items) => flushes.push(items),
      (callback) => frames.push(callback),
    );
    for (let i = 0; i < 100; i++) push(i);
    expect(frames).toHaveLength(1);
    expect(flushes).toHaveLength(0);
    frames.shift()?.();
    expect(flushes).toEqual([Array.from({ length: 100 }, (_, i) => i)]);
    push(100);
    push(101);
    expect(frames).toHaveLength(1);
    frames.shift()?.();
    expect(flushes[1]).toEqual([100, 101]);
  });
});
