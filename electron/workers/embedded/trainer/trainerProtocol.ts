/**
 * The trainer worker's protocol (docs/internals.md, "The trainer worker"),
 * generic supervisor RPC: `init` once per process start, then `step` per
 * batch of judged turns; each successful step answers with the candidate it
 * wrote to the weight store.
 */
import { z } from 'zod';
import { LORA_MODULES } from '../../../lab/weights/policyConfig';
import type { RpcProtocol } from '../../../lab/workers/workerMessages';
import { DEFAULT_ADAMW } from './adamw';
import { DEFAULT_OBJECTIVE } from './objective';

export const ObjectiveParamsSchema = z.strictObject({
  temperature: z.number().positive().default(DEFAULT_OBJECTIVE.temperature),
  clipLow: z.number().min(0).max(1).default(DEFAULT_OBJECTIVE.clipLow),
  clipHigh: z.number().min(0).default(DEFAULT_OBJECTIVE.clipHigh),
  logRatioClamp: z.number().positive().default(DEFAULT_OBJECTIVE.logRatioClamp),
  wRl: z.number().min(0).default(DEFAULT_OBJECTIVE.wRl),
  wOpd: z.number().min(0).default(DEFAULT_OBJECTIVE.wOpd),
  klCoef: z.number().min(0).default(DEFAULT_OBJECTIVE.klCoef),
  opdAdvantageClamp: z.number().positive().default(DEFAULT_OBJECTIVE.opdAdvantageClamp),
  oldLogprobs: z.enum(['actor', 'rollout']).default(DEFAULT_OBJECTIVE.oldLogprobs),
});

export const OptimizerParamsSchema = z.strictObject({
  lr: z.number().positive(),
  betas: z.tuple([z.number().min(0).lt(1), z.number().min(0).lt(1)]).default([...DEFAULT_ADAMW.betas]),
  eps: z.number().positive().default(DEFAULT_ADAMW.eps),
  weightDecay: z.number().min(0).default(DEFAULT_ADAMW.weightDecay),
  maxGradNorm: z.number().positive().default(DEFAULT_ADAMW.maxGradNorm),
});

export const InitParamsSchema = z.strictObject({
  modelDir: z.string().min(1),
  /** The run's weight store (runs/<id>/weights). */
  storeDir: z.string().min(1),
  lora: z.strictObject({ rank: z.int().positive(), alpha: z.number().positive(), targets: z.array(z.enum(LORA_MODULES)).min(1) }),
  objective: ObjectiveParamsSchema.default(ObjectiveParamsSchema.parse({})),
  optimizer: OptimizerParamsSchema,
  /** Seeds the LoRA A initialisation. */
  seed: z.int().min(0),
  /** Continue from a stored version's weights (after a restart); optimizer moments start afresh. */
  resumeFrom: z.string().optional(),
  // About 2k padded tokens per call measured fastest here (larger calls fall out of cache).
  maxTokensPerCall: z.int().positive().default(2048),
});

export const InitResultSchema = z.object({
  baseSha256: z.string(),
  parameterCount: z.int(),
  step: z.int(),
});

export const StepParamsSchema = z.strictObject({
  /** Validated by the trainer itself (trainSample.ts) so errors name sample and field. */
  samples: z.array(z.unknown()).min(1),
  lr: z.number().positive().optional(),
});

export const StepReportSchema = z.object({
  step: z.int(),
  samples: z.int(),
  tokens: z.int(),
  loss: z.number(),
  pg: z.number(),
  opd: z.number(),
  kl: z.number(),
  klCoef: z.number(),
  gradNorm: z.number(),
  clipped: z.boolean(),
  lr: z.number(),
  updateNorm: z.number(),
  seconds: z.number(),
  tokensPerSecond: z.number(),
  graphTokens: z.int(),
  sessionRange: z.array(z.string()),
  graphCalls: z.array(z.object({ kind: z.enum(['forward', 'grad']), batch: z.int(), time: z.int() })),
});

export const StepResultSchema = z.object({
  report: StepReportSchema,
  candidate: z.object({ version: z.string(), sha256: z.string(), path: z.string(), manifestPath: z.string() }),
});

export const trainerProtocol = {
  init: { params: InitParamsSchema, result: InitResultSchema },
  step: { params: StepParamsSchema, result: StepResultSchema },
} as const satisfies RpcProtocol;

/** Error codes the trainer answers with besides the supervisor's own. */
export type TrainerErrorCode = 'bad_input' | 'step_refused' | 'not_initialised';
