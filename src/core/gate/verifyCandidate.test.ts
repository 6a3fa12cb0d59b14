// Verify checks every field an engine will use (issue: adapter specs for real
// models): the LoRA rank and alpha in the safetensors metadata and in PEFT's
// adapter_config.json against the recipe, the recipe's dtype, and an update
// norm scaled by the alpha the engine will apply. A candidate failing any of
// them is rejected at verify and never reaches a probe.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readServingPointer } from '../journal/servingPointer';
import { adapterSpec } from '../weights/adapterSpec';
import { peftAdapterConfig } from '../weights/peftAdapterFormat';
import { serializeSafetensors, type WritableTensor } from '../weights/safetensors';
import {
  adapterTensors,
  baseVersion,
  behaviours,
  healthyBytes,
  newRunDir,
  openGate,
  RecordingServing,
  removeRunDirs,
  ScriptedProbeSampler,
  storeBlob,
  tinyLora,
  tinyShape,
  verifySettings,
} from './testing/gateFixtures';
import { sha256Hex, verifyCandidateBytes } from './verifyCandidate';

afterAll(removeRunDirs);

const config = (overrides: Record<string, unknown> = {}) => ({ ...peftAdapterConfig(tinyLora, 'tiny'), ...overrides });
const verify = (bytes: Uint8Array, adapterConfig: unknown = config()) => verifyCandidateBytes(bytes, sha256Hex(bytes), verifySettings, adapterConfig);
const withMetadata = (metadata: Record<string, string>) => serializeSafetensors(adapterTensors(), metadata);

describe('verify: the LoRA config an engine will apply', () => {
  it('passes an adapter whose metadata and adapter_config.json say the recipe’s rank and alpha', () => {
    expect(verify(withMetadata({ format: 'pt', lora_alpha: '4', r: '2' })).ok).toBe(true);
    // PEFT's own save_pretrained writes no alpha in the metadata: adapter_config.json alone then says it.
    expect(verify(withMetadata({ format: 'pt' })).ok).toBe(true);
  });

  it.each([
    ['metadata with a larger alpha', withMetadata({ format: 'pt', lora_alpha: '64', r: '2' }), config(), /safetensors metadata lora_alpha 64 ≠ the recipe's 4/],
    ['metadata with another rank', withMetadata({ lora_alpha: '4', r: '8' }), config(), /safetensors metadata r 8 ≠ the recipe's 2/],
    ['metadata alpha that is not a number', withMetadata({ lora_alpha: 'lots' }), config(), /lora_alpha "lots" is not a number/],
    ['adapter_config.json with a larger alpha', healthyBytes(), config({ lora_alpha: 64 }), /adapter_config.json lora_alpha 64 ≠ the recipe's 4/],
    ['adapter_config.json with another rank', healthyBytes(), config({ r: 4 }), /adapter_config.json r 4 ≠ the recipe's 2/],
    [
      'adapter_config.json with other targets',
      healthyBytes(),
      config({ target_modules: ['q_proj', 'k_proj'] }),
      /target_modules \[k_proj, q_proj\] ≠ the recipe's \[q_proj, v_proj\]/,
    ],
    ['rsLoRA (scale alpha/√r)', healthyBytes(), config({ use_rslora: true }), /use_rslora/],
    ['DoRA', healthyBytes(), config({ use_dora: true }), /use_dora/],
    ['a per-module alpha', healthyBytes(), config({ alpha_pattern: { q_proj: 64 } }), /alpha_pattern/],
    ['a pattern for the targets', healthyBytes(), config({ target_modules: '.*proj' }), /is a pattern/],
    ['another PEFT method', healthyBytes(), config({ peft_type: 'IA3' }), /peft_type "IA3"/],
  ])('rejects %s as tensor-spec', (_what, bytes, adapterConfig, detail) => {
    const outcome = verify(bytes, adapterConfig);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.reason.code).toBe('tensor-spec');
    expect(outcome.reason.detail).toMatch(detail);
  });

  it('bounds the update with the verified alpha: the same factors at twice the alpha are twice the norm', () => {
    const bytes = healthyBytes(0.05);
    const at4 = verify(bytes);
    const at8 = verifyCandidateBytes(bytes, sha256Hex(bytes), { ...verifySettings, lora: { ...verifySettings.lora, alpha: 8 } }, config({ lora_alpha: 8 }));
    expect(at4.ok && at8.ok).toBe(true);
    if (!at4.ok || !at8.ok) return;
    expect(at8.evidence.updateNorm).toBeCloseTo(2 * at4.evidence.updateNorm, 10);
  });

  it('checks the recipe’s dtype: a BF16 adapter passes a BF16 spec and fails an F32 one', () => {
    const spec = adapterSpec(tinyShape, { ...tinyLora, dtype: 'BF16' });
    const tensors = new Map<string, WritableTensor>(
      spec.map((s) => [s.name, { shape: s.shape, data: new Float32Array(s.shape[0] * s.shape[1]).fill(0.01), dtype: 'BF16' }]),
    );
    const bytes = serializeSafetensors(tensors);
    expect(verifyCandidateBytes(bytes, sha256Hex(bytes), { ...verifySettings, spec }, config()).ok).toBe(true);
    const asF32 = verify(bytes);
    expect(asF32.ok ? null : asF32.reason).toMatchObject({ code: 'tensor-spec', detail: expect.stringMatching(/dtype BF16, expected F32/) });
  });
});

describe('verify in the gate', () => {
  it('rejects a file whose metadata claims a larger alpha than the recipe’s at verify: never probed, pointer unchanged', async () => {
    const runDir = await newRunDir();
    const probe = new ScriptedProbeSampler(behaviours.clean);
    const { gate } = await openGate(runDir, { confirm: 'auto', probe, serving: new RecordingServing() });
    const c = await gate.stage({
      ...(await storeBlob(runDir, withMetadata({ format: 'pt', lora_alpha: '64', r: '2' }), 1)),
      source: { kind: 'file', path: 'bigger-alpha.safetensors' },
    });
    await gate.idle();
    expect(c.state).toMatchObject({ kind: 'rejected', reason: { code: 'tensor-spec', detail: expect.stringMatching(/lora_alpha 64/) } });
    expect(probe.calls).toEqual([]);
    expect(await readServingPointer(runDir)).toEqual(baseVersion);
  });

  it('rejects a version without adapter_config.json: no engine could know its alpha', async () => {
    const runDir = await newRunDir();
    const probe = new ScriptedProbeSampler(behaviours.clean);
    const { gate } = await openGate(runDir, { confirm: 'auto', probe });
    const stored = await storeBlob(runDir, healthyBytes(), 1);
    await rm(path.join(runDir, 'weights', 'versions', stored.version, 'adapter_config.json'));
    const c = await gate.stage({ ...stored, source: { kind: 'file', path: 'x' } });
    await gate.idle();
    expect(c.state).toMatchObject({ kind: 'rejected', reason: { code: 'tensor-spec', detail: expect.stringMatching(/no adapter_config.json/) } });
    expect(probe.calls).toEqual([]);
  });
});
