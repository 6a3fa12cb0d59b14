import { describe, expect, it } from 'vitest';
import { adapterSpec, adapterSpecProblems, peftTensorName } from './adapterSpec';
import { peftAdapterConfig } from './peftAdapterFormat';
import { moduleDims, policyConfigSchema, policyShape, type PolicyShape } from './policyConfig';
import { SMOLLM2_135M_CONFIG } from './testing/smollm2Config';
import { parseSafetensors, serializeSafetensors, type WritableTensor } from './safetensors';

const shape: PolicyShape = policyShape({
  vocab_size: 50,
  hidden_size: 16,
  intermediate_size: 40,
  num_hidden_layers: 2,
  num_attention_heads: 2,
  max_position_embeddings: 64,
  rms_norm_eps: 1e-5,
  rope_theta: 10000,
  tie_word_embeddings: true,
});

const smolLm2 = policyConfigSchema.parse(SMOLLM2_135M_CONFIG);

/** Qwen3-4B's (head_dim given, not hidden / heads; untied embeddings). */
const qwen3 = policyConfigSchema.parse({
  hidden_size: 2560,
  head_dim: 128,
  intermediate_size: 9728,
  max_position_embeddings: 262144,
  num_attention_heads: 32,
  num_hidden_layers: 36,
  num_key_value_heads: 8,
  rms_norm_eps: 1e-6,
  rope_theta: 5000000,
  tie_word_embeddings: false,
  vocab_size: 151936,
});

describe('the adapter spec', () => {
  it('names, shapes and dtypes follow PEFT for the targeted modules only', () => {
    const spec = adapterSpec(shape, { rank: 4, alpha: 8, targets: ['v', 'q', 'down'] });
    expect(spec.map((s) => [s.name, s.shape])).toEqual([
      ['base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight', [4, 16]],
      ['base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight', [16, 4]],
      ['base_model.model.model.layers.0.self_attn.v_proj.lora_A.weight', [4, 16]],
      ['base_model.model.model.layers.0.self_attn.v_proj.lora_B.weight', [16, 4]],
      ['base_model.model.model.layers.0.mlp.down_proj.lora_A.weight', [4, 40]],
      ['base_model.model.model.layers.0.mlp.down_proj.lora_B.weight', [16, 4]],
      ['base_model.model.model.layers.1.self_attn.q_proj.lora_A.weight', [4, 16]],
      ['base_model.model.model.layers.1.self_attn.q_proj.lora_B.weight', [16, 4]],
      ['base_model.model.model.layers.1.self_attn.v_proj.lora_A.weight', [4, 16]],
      ['base_model.model.model.layers.1.self_attn.v_proj.lora_B.weight', [16, 4]],
      ['base_model.model.model.layers.1.mlp.down_proj.lora_A.weight', [4, 40]],
      ['base_model.model.model.layers.1.mlp.down_proj.lora_B.weight', [16, 4]],
    ]);
    expect(new Set(spec.map((s) => s.dtype))).toEqual(new Set(['F32']));
  });

  it('grouped-query attention: q and o from the query heads, k and v from the key/value heads', () => {
    const s = policyShape(smolLm2);
    expect(s).toMatchObject({ numHeads: 9, numKvHeads: 3, headDim: 64, tiedEmbeddings: true });
    expect(moduleDims(s, 'q')).toEqual({ in: 576, out: 576 });
    expect(moduleDims(s, 'k')).toEqual({ in: 576, out: 192 });
    expect(moduleDims(s, 'v')).toEqual({ in: 576, out: 192 });
    expect(moduleDims(s, 'o')).toEqual({ in: 576, out: 576 });
    expect(moduleDims(s, 'down')).toEqual({ in: 1536, out: 576 });
    const spec = adapterSpec(s, { rank: 16, alpha: 32, targets: ['k', 'v'] });
    expect(spec).toHaveLength(30 * 2 * 2);
    expect(spec.find((x) => x.name === 'base_model.model.model.layers.29.self_attn.k_proj.lora_B.weight')?.shape).toEqual([192, 16]);
  });

  it('head_dim given and untied embeddings (Qwen3-4B): attention is heads × head_dim wide, not hidden_size', () => {
    const s = policyShape(qwen3);
    expect(s).toMatchObject({ headDim: 128, numKvHeads: 8, tiedEmbeddings: false });
    expect(moduleDims(s, 'q')).toEqual({ in: 2560, out: 4096 });
    expect(moduleDims(s, 'k')).toEqual({ in: 2560, out: 1024 });
    expect(moduleDims(s, 'o')).toEqual({ in: 4096, out: 2560 });
  });

  it('refuses a config whose query heads are not a multiple of its key/value heads', () => {
    expect(policyConfigSchema.safeParse({ ...smolLm2, num_key_value_heads: 2 }).success).toBe(false);
  });

  it('a BF16 or F16 adapter matches a spec of its dtype, and only that', () => {
    for (const dtype of ['BF16', 'F16'] as const) {
      const spec = adapterSpec(shape, { rank: 2, alpha: 4, targets: ['q'], dtype });
      const tensors = new Map<string, WritableTensor>(
        spec.map((x) => [x.name, { shape: x.shape, data: new Float32Array(x.shape[0] * x.shape[1]).fill(0.25), dtype }]),
      );
      const file = parseSafetensors(serializeSafetensors(tensors));
      expect(adapterSpecProblems(file, spec)).toEqual([]);
      const f32 = adapterSpec(shape, { rank: 2, alpha: 4, targets: ['q'] });
      expect(adapterSpecProblems(file, f32)[0]).toBe(`${peftTensorName(0, 'q', 'A')}: dtype ${dtype}, expected F32`);
    }
  });

  it('adapter_config.json carries what PEFT needs', () => {
    expect(peftAdapterConfig({ rank: 16, alpha: 32, targets: ['down', 'q'] }, 'assets/models/policy')).toMatchObject({
      peft_type: 'LORA',
      r: 16,
      lora_alpha: 32,
      target_modules: ['q_proj', 'down_proj'],
      use_rslora: false,
      use_dora: false,
      base_model_name_or_path: 'assets/models/policy',
    });
  });
});
