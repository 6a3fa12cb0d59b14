/**
 * The loss of a batch of judged turns and its gradient with respect to every
 * LoRA factor, at the current adapter:
 *   1. forward (decode.onnx, or grad.onnx with zero grad_logits) → logits of prompt ++ response;
 *   2. the objective (objective.ts) at every valid response position →
 *      dLoss/dlogits, normalised by the batch's valid-token count;
 *   3. grad.onnx with that dLoss/dlogits → the LoRA gradients.
 * Calls are grouped under a token budget; gradients are sums, so the groups
 * add up exactly to the whole batch.
 */
import type { FrozenBaseScores } from './frozenBaseScores';
import type { GradGraph } from './gradGraph';
import type { FloatArray, GraphCall, LogitsSource } from './logitsSource';
import type { LoraParams } from './loraParams';
import { klToBase, logSumExpScaled, positionObjective, writeLogitsGradient, type ObjectiveConfig, type PositionInput } from './objective';
import { groupByTokenBudget, padRight } from './sequenceBatch';
import type { TokenSample } from './tokenSample';

export interface BatchGradients {
  readonly loss: number;
  /** Per valid token means of the unweighted terms (logged every step; kl is 0 when klCoef is 0). */
  readonly pg: number;
  readonly opd: number;
  readonly kl: number;
  readonly tokens: number;
  /** Tokens through grad.onnx, padding included (the forward-only pass not counted). */
  readonly graphTokens: number;
  readonly grads: Map<string, Float64Array>;
}

/** `actorLogp` is the current adapter's log-prob at this position: the old one under oldLogprobs 'actor'. */
function positionInput(sample: TokenSample, scores: FrozenBaseScores, t: number, actorLogp: ((id: number) => number) | undefined): PositionInput {
  const teacher = scores.teacherTopLogprobs?.[t];
  const sampledId = sample.responseIds[t] as number;
  const topIds = sample.topIds[t] as number[];
  return {
    sampledId,
    oldLogprob: actorLogp ? actorLogp(sampledId) : (sample.logprobs[t] as number),
    reward: sample.reward,
    ...(teacher !== undefined ? { opd: { ids: topIds, old: actorLogp ? topIds.map(actorLogp) : (sample.topLogprobs[t] as number[]), teacher } } : {}),
  };
}

export async function batchGradients(
  graph: GradGraph,
  params: LoraParams,
  samples: readonly TokenSample[],
  scores: readonly FrozenBaseScores[],
  cfg: ObjectiveConfig,
  maxTokensPerCall: number,
  forward: LogitsSource = graph,
  calls?: GraphCall[],
): Promise<BatchGradients> {
  const tokens = samples.reduce((n, s) => n + s.forced.filter((f) => !f).length, 0);
  if (tokens === 0) throw new Error('the batch has no trainable token');
  const vocab = graph.shape.vocabSize;
  const grads = new Map<string, Float64Array>();
  for (const [key, t] of params.tensors) grads.set(key, new Float64Array(t.data.length));
  let pgSum = 0;
  let opdSum = 0;
  let klSum = 0;
  let graphTokens = 0;
  const sequences = samples.map((s) => ({ ids: [...s.promptIds, ...s.responseIds], responseStart: s.promptIds.length }));

  for (const group of groupByTokenBudget(
    sequences.map((s) => s.ids.length),
    maxTokensPerCall,
  )) {
    const batch = padRight(group.map((i) => sequences[i] as (typeof sequences)[number]));
    const logits = await forward.forward(batch, params);
    calls?.push({ kind: 'forward', batch: batch.batch, time: batch.time });
    const gradLogits: FloatArray = graph.dtype === 'float32' ? new Float32Array(logits.length) : new Float64Array(logits.length);
    group.forEach((sampleIndex, b) => {
      const sample = samples[sampleIndex] as TokenSample;
      const sampleScores = scores[sampleIndex] as FrozenBaseScores;
      for (let t = 0; t < sample.responseIds.length; t += 1) {
        if (sample.forced[t]) continue; // calculator tokens never train
        const pos = sample.promptIds.length - 1 + t;
        const offset = (b * batch.time + pos) * vocab;
        const row = logits.subarray(offset, offset + vocab);
        const lse = logSumExpScaled(row, cfg.temperature);
        const logp = (id: number) => (row[id] as number) / cfg.temperature - lse;
        const terms = positionObjective(logp, positionInput(sample, sampleScores, t, cfg.oldLogprobs === 'actor' ? logp : undefined), cfg);
        pgSum += terms.pg;
        opdSum += terms.opd;
        const out = gradLogits.subarray(offset, offset + vocab);
        writeLogitsGradient(row, lse, cfg.temperature, terms.ids, terms.dlogp, 1 / tokens, out);
        if (cfg.klCoef > 0) {
          const baseRow = sampleScores.baseLogprobs?.[t];
          if (baseRow === undefined) throw new Error('klCoef > 0 needs the base log-probs at every response position');
          klSum += klToBase(row, lse, cfg.temperature, baseRow, cfg.klCoef / tokens, out);
        }
      }
    });
    const result = await graph.run(batch, params, gradLogits);
    graphTokens += batch.batch * batch.time;
    calls?.push({ kind: 'grad', batch: batch.batch, time: batch.time });
    for (const [key, g] of result.grads ?? []) {
      const acc = grads.get(key) as Float64Array;
      for (let i = 0; i < acc.length; i += 1) acc[i] = (acc[i] as number) + (g[i] as number);
    }
  }
  const loss = (cfg.wRl * pgSum + cfg.wOpd * opdSum + cfg.klCoef * klSum) / tokens;
  return { loss, pg: pgSum / tokens, opd: opdSum / tokens, kl: klSum / tokens, tokens, graphTokens, grads };
}
