// The embedded trainer's adapters against the lab's adapter spec (what the
// gate verifies): PEFT's names and shapes, PEFT's initialisation, and no
// non-finite weight ever written.
import { describe, expect, it } from 'vitest';
import { adapterSpec, adapterSpecProblems, peftTensorName } from '../../../core/weights/adapterSpec';
import { policyShape, type PolicyShape } from '../../../core/weights/policyConfig';
import { parseSafetensors, serializeSafetensors } from '../../../core/weights/safetensors';
import { LoraParams } from './loraParams';
import { peftTensors, serializePeftAdapter } from './peftAdapter';

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

describe('the embedded trainer’s adapter', () => {
  it('a written adapter matches its spec; wrong shape, missing, extra and dtype are each reported', () => {
    const settings = { rank: 4, alpha: 8, targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] as const };
    const params = LoraParams.init(shape, { ...settings, targets: [...settings.targets] }, 3);
    const spec = adapterSpec(shape, { ...settings, targets: [...settings.targets] });
    expect(adapterSpecProblems(parseSafetensors(serializePeftAdapter(params)), spec)).toEqual([]);

    const tensors = peftTensors(params);
    const q0 = peftTensorName(0, 'q', 'A');
    tensors.set(q0, { shape: [5, 16], data: new Float32Array(80) });
    tensors.delete(peftTensorName(1, 'up', 'B'));
    tensors.set('base_model.model.lm_head.lora_A.weight', { shape: [1, 1], data: new Float32Array(1) });
    const problems = adapterSpecProblems(parseSafetensors(serializeSafetensors(tensors)), spec);
    expect(problems).toEqual([
      `${q0}: shape [5,16], expected [4,16]`,
      `missing tensor ${peftTensorName(1, 'up', 'B')}`,
      'unexpected tensor base_model.model.lm_head.lora_A.weight',
    ]);
  });

  it('PEFT initialisation: A uniform in ±1/√in, B zero, seeded', () => {
    const params = LoraParams.init(shape, { rank: 4, alpha: 8, targets: ['gate', 'down'] }, 9);
    const gateA = params.tensors.get('lora.0.gate.A')?.data ?? new Float64Array();
    const downA = params.tensors.get('lora.1.down.A')?.data ?? new Float64Array();
    expect(Math.max(...gateA.map(Math.abs))).toBeLessThanOrEqual(1 / Math.sqrt(16));
    expect(Math.max(...gateA.map(Math.abs))).toBeGreaterThan(0.8 / Math.sqrt(16));
    expect(Math.max(...downA.map(Math.abs))).toBeLessThanOrEqual(1 / Math.sqrt(40));
    expect([...(params.tensors.get('lora.0.gate.B')?.data ?? [])].every((v) => v === 0)).toBe(true);
    expect(LoraParams.init(shape, { rank: 4, alpha: 8, targets: ['gate', 'down'] }, 9).tensors.get('lora.0.gate.A')?.data).toEqual(gateA);
    expect(params.scale).toBe(2);
  });

  it('refuses to write non-finite weights', () => {
    const params = LoraParams.init(shape, { rank: 2, alpha: 2, targets: ['q'] }, 1);
    (params.tensors.get('lora.0.q.B')?.data as Float64Array)[0] = Number.POSITIVE_INFINITY;
    expect(() => serializePeftAdapter(params)).toThrow(/non-finite/);
  });
});
