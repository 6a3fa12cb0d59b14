/**
 * A Llama-family model's `config.json` (Hugging Face LlamaConfig-shaped: the
 * embedded policy's, SmolLM2's, Qwen's) and the shapes that follow from it —
 * grouped-query attention and untied embeddings included. The adapter spec,
 * the trainers and the gate's verify step all derive tensor shapes from here,
 * never from a blob. (What a particular backend cannot run, e.g. the
 * embedded graphs' tied embeddings, that backend checks itself.)
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
    /** Grouped-query attention: fewer key/value heads than query heads (absent = as many). */
    num_key_value_heads: positiveInt.optional(),
    /** Per-head width when it is not hidden_size / num_attention_heads (e.g. Qwen3). */
    head_dim: positiveInt.optional(),
    max_position_embeddings: positiveInt,
    rms_norm_eps: z.number().positive(),
    /** transformers < 5 writes rope_theta; transformers 5 writes it inside rope_parameters. Either will do. */
    rope_theta: z.number().positive().optional(),
    rope_parameters: z.looseObject({ rope_theta: z.number().positive().optional() }).optional(),
    /** Absent in some configs: transformers' default for Llama is untied (false). */
    tie_word_embeddings: z.boolean().default(false),
  })
  .refine((c) => (c.rope_theta ?? c.rope_parameters?.rope_theta) !== undefined, 'rope_theta (or rope_parameters.rope_theta) is required')
  .refine(
    (c) => c.head_dim !== undefined || c.hidden_size % c.num_attention_heads === 0,
    'hidden_size must be a multiple of num_attention_heads (or head_dim given)',
  )
  .refine(
    (c) => c.num_attention_heads % (c.num_key_value_heads ?? c.num_attention_heads) === 0,
    'num_attention_heads must be a multiple of num_key_value_heads',
  );

export type PolicyConfig = z.infer<typeof policyConfigSchema>;

/** The LoRA target modules, in the short form the graphs use (`lora.{i}.{m}.A`). */
export const LORA_MODULES = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] as const;
export type LoraModule = (typeof LORA_MODULES)[number];

export interface PolicyShape {
  readonly vocabSize: number;
  readonly hiddenSize: number;
  readonly intermediateSize: number;
  readonly numLayers: number;
  /** Query heads. */
  readonly numHeads: number;
  /** Key/value heads (= numHeads without grouped-query attention). */
  readonly numKvHeads: number;
  readonly headDim: number;
  readonly maxPositions: number;
  readonly tiedEmbeddings: boolean;
}

export function policyShape(config: z.input<typeof policyConfigSchema>): PolicyShape {
  return {
    vocabSize: config.vocab_size,
    hiddenSize: config.hidden_size,
    intermediateSize: config.intermediate_size,
    numLayers: config.num_hidden_layers,
    numHeads: config.num_attention_heads,
    numKvHeads: config.num_key_value_heads ?? config.num_attention_heads,
    headDim: config.head_dim ?? config.hidden_size / config.num_attention_heads,
    maxPositions: config.max_position_embeddings,
    tiedEmbeddings: config.tie_word_embeddings ?? false,
  };
}

/** [in, out] of a module's weight ([out, in] in the safetensors file). */
export function moduleDims(shape: PolicyShape, module: LoraModule): { readonly in: number; readonly out: number } {
  const d = shape.hiddenSize;
  const f = shape.intermediateSize;
  const attention = shape.numHeads * shape.headDim;
  const keyValue = shape.numKvHeads * shape.headDim;
  switch (module) {
    case 'q':
      return { in: d, out: attention };
    case 'k':
    case 'v':
      return { in: d, out: keyValue };
    case 'o':
      return { in: attention, out: d };
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
