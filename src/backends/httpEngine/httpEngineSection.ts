/**
 * The recipe section of a policy served by an HTTP engine the lab starts
 * (vLLM, SGLang): the model, how the engine holds it, and the sampling every
 * policy has. Each engine kind is this shape under its own `kind`.
 */
import { z } from 'zod';
import { policyCommonShape } from '../../core/recipe/recipeSchema';

const positiveInt = z.int().positive();

export const httpEngineShape = {
  model: z
    .string()
    .min(1)
    .describe('a local model folder (relative to the recipe), or a Hugging Face id looked up as $GATELAB_HOME/models/<last part, lower case>'),
  tensor_parallel: positiveInt.default(1),
  max_model_len: positiveInt.optional().describe("the served context, prompt and reply (default: 2048 on a CPU, the model's own on a GPU)"),
  max_lora_rank: z
    .union([z.literal(8), z.literal(16), z.literal(32), z.literal(64), z.literal(128)])
    .default(16)
    .describe('the largest LoRA rank the engine accepts (vLLM and SGLang --max-lora-rank)'),
  gpu_memory_utilization: z
    .number()
    .gt(0)
    .max(1)
    .optional()
    .describe(
      "GPU hosts: the share of each engine's GPU memory it may take (vLLM --gpu-memory-utilization, default 0.9; SGLang --mem-fraction-static, its own default); lower it when roles share a GPU",
    ),
  ...policyCommonShape,
};

/** The section of one HTTP engine kind. */
export function httpEngineSection<Kind extends string>(kind: Kind) {
  return z.strictObject({ kind: z.literal(kind), ...httpEngineShape });
}

/** What an HTTP engine's backend reads of its section (its kind aside). */
export type HttpEngineSection = z.output<z.ZodObject<typeof httpEngineShape>>;
