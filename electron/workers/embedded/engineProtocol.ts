/**
 * The engine worker's protocol (docs/internals.md, "The engine worker"): the
 * zod schemas both sides validate with, and the types inferred from them.
 * The supervisor (electron/lab/workers/) is generic over this object.
 */
import { z } from 'zod';
import type { RpcProtocol } from '../../lab/workers/workerMessages';
import { DEFAULT_SAMPLING } from './sampler';

export const ChatMessageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.string(),
});

export const SamplingSchema = z.object({
  temperature: z.number().min(0).max(100).default(DEFAULT_SAMPLING.temperature),
  topP: z.number().gt(0).max(1).default(DEFAULT_SAMPLING.topP),
  /** 0 disables top-k. */
  topK: z.int().min(0).default(DEFAULT_SAMPLING.topK),
  /** Response tokens at most (forced calculator tokens and `<|end|>` count). */
  maxTokens: z.int().min(1).default(512),
});

/** Top-K per position is for OPD (K = 4 by default); 20 is more than any recipe needs. */
const TopKSchema = z.int().min(0).max(20);

export const LoadParamsSchema = z.object({ modelDir: z.string().min(1) });
export const LoadResultSchema = z.object({
  baseSha256: z.string().regex(/^[0-9a-f]{64}$/),
  vocabSize: z.int().positive(),
  maxPositions: z.int().positive(),
});

export const AdapterRefSchema = z.object({
  /** `v<step>-<first 8 hex of sha256>` (checked by the lab; the engine only reports it). */
  version: z.string().min(1),
  path: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'sha256 must be 64 lowercase hex digits'),
  /**
   * LoRA alpha (scale = alpha / rank). Optional when the blob's safetensors
   * `__metadata__` carries `lora_alpha`; when both are present they must agree.
   */
  loraAlpha: z.number().positive().optional(),
});
export const SetAdapterParamsSchema = AdapterRefSchema.nullable();
export const SetAdapterResultSchema = z.object({ version: z.string() });

export const GenerateParamsSchema = z.object({
  messages: z.array(ChatMessageSchema).min(1),
  sampling: SamplingSchema.default(SamplingSchema.parse({})),
  /** Any safe integer; absent = a random seed (reported back in the result). */
  seed: z.int().optional(),
  logprobsTopK: TopKSchema.default(4),
  /** Appended to the last user message as "\n\n" + hint (the OPD teacher's input). */
  hint: z.string().optional(),
  /** Send the tokens as they are decoded, as progress messages. */
  stream: z.boolean().default(false),
});

/** Per-token fields, shared by the streamed progress and the final result. */
export const GeneratedTokensSchema = z.object({
  tokenIds: z.array(z.int()),
  text: z.string(),
  /** log_softmax of the raw logits (no temperature, top-k or top-p) at the sampled/forced token. */
  logprobs: z.array(z.number()),
  topIds: z.array(z.array(z.int())),
  topLogprobs: z.array(z.array(z.number())),
  /** True for calculator tokens the engine inserted; they are excluded from every loss. */
  forced: z.array(z.boolean()),
});
export type GeneratedTokens = z.infer<typeof GeneratedTokensSchema>;

export const GenerateResultSchema = GeneratedTokensSchema.extend({
  finishReason: z.enum(['stop', 'length']),
  promptTokens: z.int().nonnegative(),
  completionTokens: z.int().nonnegative(),
  /** The adapter version that produced this reply — the one loaded when the request arrived. */
  version: z.string(),
  seed: z.int(),
  timings: z.object({ promptMs: z.number(), decodeMs: z.number() }),
});

export const ScoreParamsSchema = z.object({
  messages: z.array(ChatMessageSchema).min(1),
  responseTokenIds: z.array(z.int().nonnegative()).min(1),
  logprobsTopK: TopKSchema.default(4),
  hint: z.string().optional(),
  /** `base` scores with LoRA off (the OPD teacher) whatever adapter is loaded. */
  adapter: z.enum(['loaded', 'base']).default('loaded'),
});
export const ScoreResultSchema = z.object({
  logprobs: z.array(z.number()),
  topIds: z.array(z.array(z.int())),
  topLogprobs: z.array(z.array(z.number())),
  version: z.string(),
});

export const engineProtocol = {
  load: { params: LoadParamsSchema, result: LoadResultSchema },
  setAdapter: { params: SetAdapterParamsSchema, result: SetAdapterResultSchema },
  generate: { params: GenerateParamsSchema, result: GenerateResultSchema, progress: GeneratedTokensSchema },
  score: { params: ScoreParamsSchema, result: ScoreResultSchema },
} as const satisfies RpcProtocol;

export type EngineProtocol = typeof engineProtocol;
export type EngineChatMessage = z.infer<typeof ChatMessageSchema>;
export type Sampling = z.infer<typeof SamplingSchema>;
export type LoadResult = z.infer<typeof LoadResultSchema>;
export type AdapterRef = z.infer<typeof AdapterRefSchema>;
export type GenerateParams = z.infer<typeof GenerateParamsSchema>;
export type GenerateResult = z.infer<typeof GenerateResultSchema>;
export type ScoreParams = z.infer<typeof ScoreParamsSchema>;
export type ScoreResult = z.infer<typeof ScoreResultSchema>;

/** Error codes the engine answers with (besides the supervisor's own). */
export const ENGINE_ERROR_CODES = [
  'not_loaded',
  'context_length_exceeded',
  'bad_adapter',
  'adapter_hash_mismatch',
  'bad_request',
  'engine_error',
] as const;
export type EngineErrorCode = (typeof ENGINE_ERROR_CODES)[number];
