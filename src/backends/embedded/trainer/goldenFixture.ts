/**
 * Loads tests/golden/trainer-golden.json (written by tools/trainer/make_golden.py)
 * into the trainer's types. Used by the golden and finite-difference tests.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { LORA_MODULES, policyConfigSchema, policyShape, type PolicyShape } from '../../../core/weights/policyConfig';
import type { LoraSettings } from '../../../core/weights/adapterSpec';
import type { AdamWConfig } from './adamw';
import { frozenBaseScores, type FrozenBaseScores } from './frozenBaseScores';
import { GradGraph, type NamedTensor } from './gradGraph';
import { LoraParams } from './loraParams';
import type { ObjectiveConfig } from './objective';
import { parseTokenBatch, type TokenSample } from './tokenSample';

export const GOLDEN_DIR = fileURLToPath(new URL('../../../../tests/golden/', import.meta.url));

const tensorSchema = z.object({ shape: z.array(z.int()), data: z.array(z.number()) });
const goldenSchema = z.object({
  config: policyConfigSchema,
  lora: z.object({ rank: z.int(), alpha: z.number(), scale: z.number(), targets: z.array(z.enum(LORA_MODULES)) }),
  objective: z.object({
    temperature: z.number(),
    clipLow: z.number(),
    clipHigh: z.number(),
    wRl: z.number(),
    wOpd: z.number(),
    klCoef: z.number(),
    opdAdvantageClamp: z.number(),
    topK: z.int(),
  }),
  optimizer: z.object({
    lr: z.number(),
    betas: z.tuple([z.number(), z.number()]),
    eps: z.number(),
    weightDecay: z.number(),
    maxGradNorm: z.number(),
    steps: z.int(),
  }),
  base: z.record(z.string(), tensorSchema),
  adapter: z.record(z.string(), tensorSchema),
  samples: z.array(z.unknown()),
  expected: z.object({
    loss: z.number(),
    pg: z.number(),
    opd: z.number(),
    kl: z.number(),
    tokens: z.int(),
    frozenBase: z.array(z.object({ teacherTopLogprobs: z.array(z.array(z.number())).nullable(), baseLogprobs: z.array(z.array(z.number())) })),
    grads: z.record(z.string(), tensorSchema),
    gradNorm: z.number(),
    adapterAfterSteps: z.record(z.string(), tensorSchema),
  }),
});

export type Golden = z.infer<typeof goldenSchema>;

export interface GoldenFixture {
  readonly golden: Golden;
  readonly shape: PolicyShape;
  readonly settings: LoraSettings;
  readonly objective: ObjectiveConfig;
  readonly optimizer: AdamWConfig;
  readonly base: Map<string, NamedTensor>;
  readonly adapter: () => LoraParams;
  readonly openGraph: (dtype: 'f64' | 'f32') => Promise<GradGraph>;
  /** The graph, the golden samples and their frozen-base scores (teacher and KL reference). */
  readonly openBatch: (dtype: 'f64' | 'f32') => Promise<{ graph: GradGraph; samples: TokenSample[]; scores: FrozenBaseScores[] }>;
}

export function loadGolden(): GoldenFixture {
  const golden = goldenSchema.parse(JSON.parse(readFileSync(`${GOLDEN_DIR}trainer-golden.json`, 'utf8')));
  const shape = policyShape(golden.config);
  const settings: LoraSettings = { rank: golden.lora.rank, alpha: golden.lora.alpha, targets: golden.lora.targets };
  const base = new Map(Object.entries(golden.base).map(([k, t]) => [k, { shape: t.shape, data: Float64Array.from(t.data) }]));
  const o = golden.objective;
  const objective: ObjectiveConfig = {
    temperature: o.temperature,
    clipLow: o.clipLow,
    clipHigh: o.clipHigh,
    logRatioClamp: 20,
    wRl: o.wRl,
    wOpd: o.wOpd,
    klCoef: o.klCoef,
    opdAdvantageClamp: o.opdAdvantageClamp,
    // The vectors give their old log-probs; the reference uses them as given.
    oldLogprobs: 'rollout',
  };
  const openGraph = (dtype: 'f64' | 'f32') => GradGraph.open(`${GOLDEN_DIR}grad-tiny-${dtype}.onnx`, shape, base, 1);
  return {
    golden,
    shape,
    settings,
    objective,
    optimizer: {
      lr: golden.optimizer.lr,
      betas: golden.optimizer.betas,
      eps: golden.optimizer.eps,
      weightDecay: golden.optimizer.weightDecay,
      maxGradNorm: golden.optimizer.maxGradNorm,
    },
    base,
    adapter: () => LoraParams.fromValues(shape, settings, new Map(Object.entries(golden.adapter).map(([k, t]) => [k, t.data]))),
    openGraph,
    openBatch: async (dtype) => {
      const graph = await openGraph(dtype);
      const samples = parseTokenBatch(golden.samples, shape.vocabSize);
      const scores = await frozenBaseScores(graph, samples, { needBase: true, temperature: objective.temperature, maxTokensPerCall: 64 });
      return { graph, samples, scores };
    },
  };
}

/** max |a − b| / max |b|: the relative error of a whole tensor. */
export function relativeError(actual: ArrayLike<number>, expected: ArrayLike<number>): number {
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < expected.length; i += 1) {
    diff = Math.max(diff, Math.abs((actual[i] as number) - (expected[i] as number)));
    scale = Math.max(scale, Math.abs(expected[i] as number));
  }
  return scale === 0 ? diff : diff / scale;
}
