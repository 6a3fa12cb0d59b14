/**
 * oldLogprobs 'actor' (slime's default): π_old is the trainer's own policy at
 * the start of the step. Its gradient must be exactly the 'rollout' gradient
 * computed with old log-probs recomputed from the current adapter, and it must
 * differ from the 'rollout' gradient with the engine's recorded ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchGradients } from './batchGradients';
import type { FrozenBaseScores } from './frozenBaseScores';
import type { GradGraph } from './gradGraph';
import { loadGolden, relativeError } from './goldenFixture';
import { logSumExpScaled } from './objective';
import { padRight } from './sequenceBatch';
import type { TokenSample } from './tokenSample';

const fx = loadGolden();
const rollout = { ...fx.objective, oldLogprobs: 'rollout' as const };
const actor = { ...fx.objective, oldLogprobs: 'actor' as const };

describe("oldLogprobs 'actor'", () => {
  let graph: GradGraph;
  let samples: TokenSample[];
  let scores: FrozenBaseScores[];
  beforeAll(async () => {
    ({ graph, samples, scores } = await fx.openBatch('f64'));
  });
  afterAll(async () => {
    await graph.release();
  });

  /** The sample with its old log-probs replaced by the current adapter's. */
  async function recomputed(sample: TokenSample): Promise<TokenSample> {
    const params = fx.adapter();
    const batch = padRight([{ ids: [...sample.promptIds, ...sample.responseIds], responseStart: sample.promptIds.length }]);
    const logits = await graph.forward(batch, params);
    const vocab = fx.shape.vocabSize;
    const logpAt = (t: number) => {
      const offset = (sample.promptIds.length - 1 + t) * vocab;
      const row = logits.subarray(offset, offset + vocab);
      const lse = logSumExpScaled(row, fx.objective.temperature);
      return (id: number) => (row[id] as number) / fx.objective.temperature - lse;
    };
    return {
      ...sample,
      logprobs: sample.responseIds.map((id, t) => logpAt(t)(id)),
      topLogprobs: sample.topIds.map((ids, t) => ids.map(logpAt(t))),
    };
  }

  it('equals the rollout gradient with old log-probs recomputed from the current adapter', async () => {
    const fromActor = await batchGradients(graph, fx.adapter(), samples, scores, actor, 64);
    const resampled = await Promise.all(samples.map(recomputed));
    const fromRecomputed = await batchGradients(graph, fx.adapter(), resampled, scores, rollout, 64);
    expect(fromActor.loss).toBeCloseTo(fromRecomputed.loss, 10);
    for (const [key, g] of fromRecomputed.grads) {
      expect(relativeError(fromActor.grads.get(key) as Float64Array, g), key).toBeLessThan(1e-9);
    }
  });

  it("differs from the rollout gradient when the engine's old log-probs are not the adapter's", async () => {
    const fromActor = await batchGradients(graph, fx.adapter(), samples, scores, actor, 64);
    const fromRollout = await batchGradients(graph, fx.adapter(), samples, scores, rollout, 64);
    let worst = 0;
    for (const [key, g] of fromRollout.grads) worst = Math.max(worst, relativeError(fromActor.grads.get(key) as Float64Array, g));
    expect(worst).toBeGreaterThan(1e-3);
  });
});
