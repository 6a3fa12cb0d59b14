import { describe, expect, it } from 'vitest';
import { DEFAULT_SAMPLING, logSumExp, Sampler, SeededRng, selectTopK } from './sampler';

function histogram(logits: Float32Array, params: { temperature: number; topP: number; topK: number }, draws: number, seed = 1) {
  const sampler = new Sampler(logits.length);
  const rng = new SeededRng(seed);
  const counts = new Array<number>(logits.length).fill(0);
  for (let i = 0; i < draws; i += 1) counts[sampler.sample(logits, params, rng)]! += 1;
  return counts.map((c) => c / draws);
}

describe('SeededRng', () => {
  it('is a pure function of the seed', () => {
    const a = new SeededRng(42);
    const b = new SeededRng(42);
    const c = new SeededRng(43);
    const seqA = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(seqA);
    expect(Array.from({ length: 5 }, () => c.next())).not.toEqual(seqA);
  });
  it('uses both halves of large seeds and is uniform', () => {
    expect(new SeededRng(2 ** 40).next()).not.toBe(new SeededRng(0).next());
    const rng = new SeededRng(7);
    let sum = 0;
    for (let i = 0; i < 20000; i += 1) {
      const u = rng.next();
      expect(u >= 0 && u < 1).toBe(true);
      sum += u;
    }
    expect(sum / 20000).toBeCloseTo(0.5, 1);
  });
  it('rejects non-integer seeds', () => {
    expect(() => new SeededRng(1.5)).toThrow(/seed/);
  });
});

describe('logSumExp and selectTopK', () => {
  it('normalises log-probs', () => {
    const logits = new Float32Array([1000, 1001, 999]);
    const lse = logSumExp(logits);
    const total = [...logits].reduce((s, x) => s + Math.exp(x - lse), 0);
    expect(total).toBeCloseTo(1, 10);
  });
  it('returns the k best ids in order, ties by lower id', () => {
    const ids = new Int32Array(3);
    const values = new Float32Array(3);
    expect(selectTopK(new Float32Array([0.1, 5, 3, 5, -1, 4]), 3, ids, values)).toBe(3);
    expect([...ids]).toEqual([1, 3, 5]);
    expect(selectTopK(new Float32Array([2, 1]), 3, ids, values)).toBe(2);
    expect([...ids.subarray(0, 2)]).toEqual([0, 1]);
  });
});

describe('Sampler', () => {
  const logits = new Float32Array([2, 1, 0, -1, -3]);

  it('is greedy at temperature 0', () => {
    const sampler = new Sampler(5);
    expect(sampler.sample(logits, { temperature: 0, topP: 1, topK: 0 }, new SeededRng(1))).toBe(0);
  });

  it('matches softmax(logits / T) without filtering', () => {
    const freq = histogram(logits, { temperature: 0.7, topP: 1, topK: 0 }, 40000);
    const scaled = [...logits].map((x) => Math.exp(x / 0.7));
    const z = scaled.reduce((a, b) => a + b, 0);
    // 40k draws: σ ≤ 0.0025 per bin, so 0.01 is a 4σ bound.
    scaled.forEach((p, i) => expect(Math.abs(freq[i]! - p / z)).toBeLessThan(0.01));
  });

  it('never samples outside the top-k', () => {
    const freq = histogram(logits, { temperature: 5, topP: 1, topK: 2 }, 5000);
    expect(freq[2]! + freq[3]! + freq[4]!).toBe(0);
    expect(freq[1]).toBeGreaterThan(0.3);
  });

  it('keeps the smallest nucleus reaching top-p', () => {
    // softmax([2,1,0,-1,-3]) ≈ [.638,.235,.086,.032,.004]: p=0.8 keeps two tokens.
    const freq = histogram(logits, { temperature: 1, topP: 0.8, topK: 0 }, 20000);
    expect(freq[2]! + freq[3]! + freq[4]!).toBe(0);
    expect(freq[0]).toBeCloseTo(0.638 / 0.873, 1);
  });

  it('gives the same draws for the same seed', () => {
    const big = Float32Array.from({ length: 300 }, (_, i) => Math.sin(i));
    const a = histogram(big, DEFAULT_SAMPLING, 200, 9);
    const b = histogram(big, DEFAULT_SAMPLING, 200, 9);
    expect(a).toEqual(b);
  });

  it('fails loudly on a wrong-sized row', () => {
    expect(() => new Sampler(4).sample(logits, DEFAULT_SAMPLING, new SeededRng(1))).toThrow(/vocab/);
  });
});
