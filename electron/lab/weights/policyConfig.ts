/**
 * The embedded policy's `config.json` (HF LlamaConfig-shaped, docs/internals.md)
 * and the shapes that follow from it. The adapter spec, the trainer and the
 * gate's verify step all derive tensor shapes from here, never from a blob.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';

const positiveInt = z.int().positive();

export const policyConfigSchema = z
  .looseObject({
    vocab_size: positiveInt,
    hidden_size: positiveInt,
    intermediate_size: positiveInt,
    num_hidden_layers: positiveInt,
    num_attention_heads: positiveInt,
    num_key_value_heads: positiveInt.optional(),
    max_position_embeddings: positiveInt,
    rms_norm_eps: z.number().positive(),
    rope_theta: z.number().positive(),
    tie_word_embeddings: z.boolean(),
  })
  .refine((c) => c.hidden_size % c.num_attention_heads === 0, 'hidden_size must be a multiple of num_attention_heads')
  .refine((c) => (c.num_key_value_heads ?? c.num_attention_heads) === c.num_attention_heads, 'grouped-query attention is not supported')
  .refine((c) => c.tie_word_embeddings, 'the embedded policy ties its embeddings');

export type PolicyConfig = z.infer<typeof policyConfigSchema>;

/** The LoRA target modules, in the short form the graphs use (`lora.{i}.{m}.A`). */
export const LORA_MODULES = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] as const;
export type LoraModule = (typeof LORA_MODULES)[number];

export interface PolicyShape {
  readonly vocabSize: number;
  readonly hiddenSize: number;
  readonly intermediateSize: number;
  readonly numLayers: number;
  readonly numHeads: number;
  readonly maxPositions: number;
}

export function policyShape(config: PolicyConfig): PolicyShape {
  return {
    vocabSize: config.vocab_size,
    hiddenSize: config.hidden_size,
    intermediateSize: config.intermediate_size,
    numLayers: config.num_hidden_layers,
    numHeads: config.num_attention_heads,
    maxPositions: config.max_position_embeddings,
  };
}

/** [in, out] of a module's weight ([out, in] in the safetensors file). */
export function moduleDims(shape: PolicyShape, module: LoraModule): { readonly in: number; readonly out: number } {
  const d = shape.hiddenSize;
  const f = shape.intermediateSize;
  switch (module) {
    case 'q':
    case 'k':
    case 'v':
    case 'o':
      return { in: d, out: d };
    case 'gate':
    case 'up':
      return { in: d, out: f };
    case 'down':
      return { in: f, out: d };
    default: {
      const unreachable: never = module;
      throw new Error(`unknown LoRA module ${String(unreachable)}`);
    }
  }
}

/** The HF base tensor a module adapts, e.g. `model.layers.0.self_attn.q_proj.weight`. */
export function baseWeightName(layer: number, module: LoraModule): string {
  const group = module === 'gate' || module === 'up' || module === 'down' ? 'mlp' : 'self_attn';
  return `model.layers.${layer}.${group}.${module}_proj.weight`;
}

export async function readPolicyConfig(path: string): Promise<PolicyConfig> {
  const text = await readFile(path, 'utf8');
  const parsed = policyConfigSchema.safeParse(JSON.parse(text));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${path}: ${issue?.path.join('.') || '(config)'} ${issue?.message ?? 'is invalid'}`);
  }
  return parsed.data;
}
