/**
 * The embedded engine's RPC protocol: the lab's engine protocol
 * (src/core/protocols/engineProtocol.ts) plus what only this engine
 * offers — a `hint` on generate and `score` (log-probs of a given response,
 * the base with LoRA off on request) — used by its tests and benches.
 */
import { z } from 'zod';
import {
  chatMessageSchema,
  engineRpcProtocol,
  generateParamsSchema,
  type AdapterRef,
  type ChatMessage,
  type EngineHealth,
  type EngineInfo,
  type GeneratedTokens as LabGeneratedTokens,
  type GenerateResult as LabGenerateResult,
} from '../../../core/protocols/engineProtocol';
import type { RpcProtocol } from '../../../processes/workerMessages';

export type { AdapterRef, EngineHealth };
/** This engine always says which tokens it forced (the calculator's). */
export type GeneratedTokens = LabGeneratedTokens & { forced: boolean[] };
export type GenerateResult = LabGenerateResult & { forced: boolean[] };
export type EngineChatMessage = ChatMessage;
export type LoadResult = EngineInfo;

/** Top-K per position is for OPD (K = 4 by default); 20 is more than any recipe needs. */
const TopKSchema = z.int().min(0).max(20);

export const GenerateParamsSchema = generateParamsSchema.extend({
  /** Appended to the last user message as "\n\n" + hint (the OPD teacher's input). */
  hint: z.string().optional(),
});

export const ScoreParamsSchema = z.strictObject({
  messages: z.array(chatMessageSchema).min(1),
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
  ...engineRpcProtocol,
  generate: { ...engineRpcProtocol.generate, params: GenerateParamsSchema },
  score: { params: ScoreParamsSchema, result: ScoreResultSchema },
} as const satisfies RpcProtocol;

export type EngineProtocol = typeof engineProtocol;
export type GenerateParams = z.infer<typeof GenerateParamsSchema>;
export type ScoreParams = z.infer<typeof ScoreParamsSchema>;
export type ScoreResult = z.infer<typeof ScoreResultSchema>;
