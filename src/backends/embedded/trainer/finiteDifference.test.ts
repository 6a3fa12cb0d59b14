/**
 * The whole backward — the TypeScript objective's dLoss/dlogits and grad.onnx's
 * hand-written vector-Jacobian product — against central finite differences
 * of the loss, on the tiny float64 graph (tests/golden/grad-tiny-f64.onnx).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SeededRng } from '../engine/sampler';
import { batchGradients } from './batchGradients';
import type { FrozenBaseScores } from './frozenBaseScores';
import type { GradGraph } from './gradGraph';
import { loadGolden } from './goldenFixture';
import type { LoraParams } from './loraParams';
import type { TokenSample } from './tokenSample';

const fx = loadGolden();
const STEP = 1e-5;
const TOLERANCE = 1e-3;

describe('finite-difference check of the backward pass (float64 tiny graph)', () => {
  let graph: GradGraph;
  let samples: TokenSample[];
  let scores: FrozenBaseScores[];
  beforeAll(async () => {
    ({ graph, samples, scores } = await fx.openBatch('f64'));
  });
  afterAll(async () => {
    await graph.release();
  });

  const lossAt = async (params: LoraParams) => (await batchGradients(graph, params, samples, scores, fx.objective, 64)).loss;

  it('every sampled coordinate of every LoRA factor agrees within 1e-3 relative', async () => {
    const params = fx.adapter();
    const analytic = await batchGradients(graph, params, samples, scores, fx.objective, 64);
    const rng = new SeededRng(11);
    let checked = 0;
    let worst = 0;
    for (const [key, tensor] of params.tensors) {
      // Two coordinates per factor: every module, layer and part is covered.
      for (let draw = 0; draw < 2; draw += 1) {
        const i = Math.floor(rng.next() * tensor.data.length);
        const original = tensor.data[i] as number;
        tensor.data[i] = original + STEP;
        const plus = await lossAt(params);
        tensor.data[i] = original - STEP;
        const minus = await lossAt(params);
        tensor.data[i] = original;
        const numeric = (plus - minus) / (2 * STEP);
        const exact = analytic.grads.get(key)?.[i] as number;
        const error = Math.abs(numeric - exact) / Math.max(Math.abs(numeric), Math.abs(exact), 1e-6);
        worst = Math.max(worst, error);
        expect(error, `${key}[${i}]: finite difference ${numeric}, backward ${exact}`).toBeLessThan(TOLERANCE);
        checked += 1;
      }
    }
    expect(checked).toBe(2 * params.tensors.size);
    expect(worst).toBeLessThan(TOLERANCE);
  });

  it('a random direction through all factors agrees within 1e-3 relative', async () => {
    const params = fx.adapter();
    const analytic = await batchGradients(graph, params, samples, scores, fx.objective, 64);
    const rng = new SeededRng(5);
    const direction = new Map<string, Float64Array>();
    let predicted = 0;
    for (const [key, tensor] of params.tensors) {
      const d = Float64Array.from(tensor.data, () => rng.next() - 0.5);
      direction.set(key, d);
      const g = analytic.grads.get(key) as Float64Array;
      for (let i = 0; i < d.length; i += 1) predicted += (d[i] as number) * (g[i] as number);
    }
    const shifted = (sign: number) => {
      const p = params.clone();
      for (const [key, tensor] of p.tensors) {
        const d = direction.get(key) as Float64Array;
        for (let i = 0; i < d.length; i += 1) tensor.data[i] = (tensor.data[i] as number) + sign * STEP * (d[i] as number);
      }
      return p;
    };
    const numeric = ((await lossAt(shifted(1))) - (await lossAt(shifted(-1)))) / (2 * STEP);
    expect(Math.abs(numeric - predicted) / Math.abs(predicted)).toBeLessThan(TOLERANCE);
  });
});
