/**
 * A real LoRA adapter in PEFT's format for a Hugging Face model folder, with
 * seeded random factors big enough to move the model's log-probs visibly:
 * what the engine tests load to tell versions apart.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AdapterRef } from '../../src/core/protocols/engineProtocol';
import { sha256OfFile } from '../../src/core/weights/adapterBlob';
import { createRng } from '../../src/core/tasks/rng';
import { adapterSpec } from '../../src/core/weights/adapterSpec';
import { peftAdapterConfig, peftAdapterMetadata } from '../../src/core/weights/peftAdapterFormat';
import { LORA_MODULES, policyShape, readPolicyConfig } from '../../src/core/weights/policyConfig';
import { writeSafetensors, type WritableTensor } from '../../src/core/weights/safetensors';

/** Writes `<dir>/adapter_model.safetensors` + `adapter_config.json`; the version is `<prefix>-<sha8>`. */
export async function writeRandomLoraAdapter(modelDir: string, dir: string, seed: number, scale = 0.12, prefix = 't'): Promise<AdapterRef & { dir: string }> {
  const shape = policyShape(await readPolicyConfig(path.join(modelDir, 'config.json')));
  const settings = { rank: 8, alpha: 16, targets: LORA_MODULES } as const;
  const rng = createRng(seed);
  const tensors = new Map<string, WritableTensor>();
  for (const spec of adapterSpec(shape, settings)) {
    tensors.set(spec.name, {
      shape: spec.shape,
      data: Float32Array.from({ length: spec.shape[0] * spec.shape[1] }, () => (rng.next() - 0.5) * scale),
      dtype: 'F32',
    });
  }
  await mkdir(dir, { recursive: true });
  const blob = path.join(dir, 'adapter_model.safetensors');
  await writeSafetensors(blob, tensors, peftAdapterMetadata(settings));
  const adapterConfigPath = path.join(dir, 'adapter_config.json');
  await writeFile(adapterConfigPath, JSON.stringify(peftAdapterConfig(settings, modelDir), null, 2));
  const sha256 = await sha256OfFile(blob);
  return { version: `${prefix}-${sha256.slice(0, 8)}`, path: blob, sha256, adapterConfigPath, loraAlpha: settings.alpha, dir };
}
