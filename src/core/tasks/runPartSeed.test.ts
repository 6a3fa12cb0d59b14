// A run's seed must change its sessions: with deriveSeed, every one-digit run
// seed derived the same session and turn seeds (so "five seeds" were one).
import { describe, expect, it } from 'vitest';
import { deriveSeed, runPartSeed } from './rng';

describe('runPartSeed', () => {
  it('gives every run seed from 0 to 9999 its own session and turn seeds', () => {
    for (const label of ['session-0', 'session-35', 'turn-0']) {
      const seeds = new Set(Array.from({ length: 10_000 }, (_, s) => runPartSeed(s, label)));
      expect(seeds.size).toBe(10_000);
    }
  });

  it('is what deriveSeed is not for one-digit seeds (the reason it exists)', () => {
    expect(new Set([1, 2, 3, 4, 5].map((s) => deriveSeed(s, 'session-0'))).size).toBe(1);
    expect(new Set([1, 2, 3, 4, 5].map((s) => runPartSeed(s, 'session-0'))).size).toBe(5);
  });

  it('is a pure function of the seed and the label, and refuses a seed that is not a safe integer', () => {
    expect(runPartSeed(7, 'turn-2')).toBe(runPartSeed(7, 'turn-2'));
    expect(runPartSeed(7, 'turn-2')).not.toBe(runPartSeed(7, 'turn-3'));
    expect(() => runPartSeed(1.5, 'x')).toThrow(/safe integer/);
  });
});
