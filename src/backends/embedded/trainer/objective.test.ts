import { describe, expect, it } from 'vitest';
import { clippedSurrogate, DEFAULT_OBJECTIVE, klToBase, logSumExpScaled, positionObjective, softmax, writeLogitsGradient } from './objective';

const cfg = DEFAULT_OBJECTIVE;

describe('the PPO clipped surrogate', () => {
  it.each([
    // [log-ratio, advantage, value, slope] — slope is d(value)/d logπ
    ['ratio 1, A = +1: −A, slope −1', 0, 1, -1, -1],
    ['ratio e^0.5 > 1.28, A > 0: clipped at 1.28, no slope', 0.5, 1, -1.28, 0],
    ['ratio e^0.1 < 1.28, A > 0: unclipped', 0.1, 1, -Math.exp(0.1), -Math.exp(0.1)],
    ['ratio e^-0.5 < 0.8, A < 0: clipped at 0.8, no slope', -0.5, -1, 0.8, 0],
    ['ratio e^0.5, A < 0: the pessimistic unclipped branch keeps its slope', 0.5, -1, Math.exp(0.5), Math.exp(0.5)],
    ['log-ratio 25, A < 0: clamped at 20, no slope', 25, -1, Math.exp(20), 0],
    ['A = 0: nothing', 0.3, 0, -0, 0],
  ] as const)('%s', (_name, logRatio, advantage, value, slope) => {
    const r = clippedSurrogate(-1 + logRatio, -1, advantage, cfg);
    expect(r.value).toBeCloseTo(value, 9);
    expect(r.dlogp).toBeCloseTo(slope, 9);
  });
});

describe('the OPD top-K term', () => {
  it('weights the clamped teacher advantage by the softmax of the old top-K', () => {
    const old = [-0.5, -1.5, -2.5, -3];
    const teacher = [-3, -0.2, -2.5, -1];
    const w = softmax(old);
    const terms = positionObjective((id) => old[id] as number, { sampledId: 0, oldLogprob: -0.5, reward: 0, opd: { ids: [0, 1, 2, 3], old, teacher } }, cfg);
    // at ratio 1 each term is −A_v, A_v = clamp(teacher − old, ±1)·w_v
    const advantages = [-1, 1, 0, 1].map((a, v) => a * (w[v] as number));
    expect(terms.opd).toBeCloseTo(-advantages.reduce((a, b) => a + b, 0), 12);
    expect(terms.pg).toBeCloseTo(-0, 12);
    expect(terms.ids).toEqual([0, 1, 3]);
    expect(terms.dlogp).toEqual([-(advantages[0] as number), -(advantages[1] as number), -(advantages[3] as number)].map((x) => expect.closeTo(x, 12)));
  });

  it('the KL term is KL(π‖base) over the whole vocabulary, with its exact logits gradient', () => {
    const row = Float64Array.from([0.3, -1, 2, 0.5, -0.2]);
    const base = Float64Array.from([1, 0, -1, 0.2, 0.4]);
    const baseRow = base.map((z) => z - logSumExpScaled(base, 1));
    const T = 0.7;
    const klOf = (z: Float64Array) => {
      const lse = logSumExpScaled(z, T);
      return z.reduce((sum, zj, j) => sum + Math.exp(zj / T - lse) * (zj / T - lse - (baseRow[j] as number)), 0);
    };
    const out = new Float64Array(5);
    const kl = klToBase(row, logSumExpScaled(row, T), T, baseRow, 0.5, out);
    expect(kl).toBeCloseTo(klOf(row), 12);
    expect(kl).toBeGreaterThan(0);
    for (let j = 0; j < 5; j += 1) {
      const h = 1e-6;
      const up = Float64Array.from(row);
      const down = Float64Array.from(row);
      up[j] = (up[j] as number) + h;
      down[j] = (down[j] as number) - h;
      expect(out[j]).toBeCloseTo((0.5 * (klOf(up) - klOf(down))) / (2 * h), 8);
    }
    // at the base itself the KL and its gradient vanish
    const atBase = new Float64Array(5);
    expect(klToBase(base, logSumExpScaled(base, 1), 1, baseRow, 1, atBase)).toBeCloseTo(0, 12);
    for (const g of atBase) expect(g).toBeCloseTo(0, 12);
    expect(() => klToBase(row, 0, 1, baseRow.subarray(0, 4), 1, out)).toThrow(/vocabulary/);
  });

  it('dLoss/dlogits sums to zero over the vocabulary (softmax invariance) and scales with 1/T', () => {
    const row = Float64Array.from([0.3, -1, 2, 0.5, -0.2]);
    const out = new Float64Array(5);
    writeLogitsGradient(row, logSumExpScaled(row, 0.5), 0.5, [2, 4], [-1, 0.5], 0.25, out);
    expect(out.reduce((a, b) => a + b, 0)).toBeCloseTo(0, 12);
    const p = row.map((z) => Math.exp(z / 0.5 - logSumExpScaled(row, 0.5)));
    expect(out[2]).toBeCloseTo(((-1 - (p[2] as number) * -0.5) * 0.25) / 0.5, 12);
  });
});
