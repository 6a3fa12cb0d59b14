/**
 * LoRA adapters as decode.onnx inputs. A candidate blob uses PEFT's names
 * (`base_model.model.model.layers.{i}.self_attn.q_proj.lora_A.weight`, …);
 * the graph wants `lora.{i}.{m}.A` [r,in] / `lora.{i}.{m}.B` [out,r] and
 * `lora_scale` = alpha / r. The base model is B = 0.
 *
 * The blob is read once, hashed and parsed from the same bytes (no window
 * between checking and using), and rejected unless every tensor is a known
 * LoRA factor with the right shape and finite values.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { LORA_MODULES, moduleDims, type LoraModule, type PolicyShape } from '../../../core/weights/policyConfig';
import { parseSafetensors, toFloat32 } from '../../../core/weights/safetensors';
import { WorkerError } from '../../../processes/serveWorker';
import type { AdapterRef } from './embeddedEngineProtocol';
import { ort } from './ortSession';

export const BASE_VERSION = 'base';

export interface LoadedAdapter {
  readonly version: string;
  readonly rank: number;
  readonly scale: number;
  /** `lora.{i}.{m}.A`, `lora.{i}.{m}.B` for every layer and module, and `lora_scale`. */
  readonly feeds: Readonly<Record<string, ort.Tensor>>;
}

const PEFT_NAME = /^base_model\.model\.model\.layers\.(\d+)\.(self_attn|mlp)\.(q|k|v|o|gate|up|down)_proj\.lora_(A|B)\.weight$/;

function groupOf(module: LoraModule): 'self_attn' | 'mlp' {
  return module === 'gate' || module === 'up' || module === 'down' ? 'mlp' : 'self_attn';
}

/** The base model as an adapter: rank-1 zeros (B = 0 makes every LoRA term vanish). */
export function baseAdapter(shape: PolicyShape): LoadedAdapter {
  const feeds: Record<string, ort.Tensor> = {};
  for (let layer = 0; layer < shape.numLayers; layer += 1) {
    for (const module of LORA_MODULES) {
      const dims = moduleDims(shape, module);
      feeds[`lora.${layer}.${module}.A`] = new ort.Tensor('float32', new Float32Array(dims.in), [1, dims.in]);
      feeds[`lora.${layer}.${module}.B`] = new ort.Tensor('float32', new Float32Array(dims.out), [dims.out, 1]);
    }
  }
  feeds.lora_scale = new ort.Tensor('float32', new Float32Array([0]), []);
  return { version: BASE_VERSION, rank: 1, scale: 0, feeds };
}

export async function loadAdapter(shape: PolicyShape, ref: AdapterRef): Promise<LoadedAdapter> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(ref.path);
  } catch (error) {
    throw new WorkerError('bad_adapter', `adapter ${ref.version}: cannot read ${ref.path}: ${(error as Error).message}`);
  }
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== ref.sha256) {
    throw new WorkerError('adapter_hash_mismatch', `adapter ${ref.version}: ${ref.path} hashes to ${actual}, expected ${ref.sha256}`);
  }
  const fail = (message: string): never => {
    throw new WorkerError('bad_adapter', `adapter ${ref.version}: ${message}`);
  };

  let file: ReturnType<typeof parseSafetensors>;
  try {
    file = parseSafetensors(bytes);
  } catch (error) {
    return fail((error as Error).message);
  }

  const factors = new Map<string, { shape: readonly number[]; data: Float32Array }>();
  let rank: number | undefined;
  for (const [name, raw] of file.tensors) {
    const match = PEFT_NAME.exec(name);
    if (!match) return fail(`unexpected tensor ${name}`);
    const layer = Number(match[1]);
    const module = match[3] as LoraModule;
    const part = match[4] as 'A' | 'B';
    if (match[2] !== groupOf(module)) return fail(`${name}: ${module}_proj belongs under ${groupOf(module)}`);
    if (layer >= shape.numLayers) return fail(`${name}: layer ${layer} does not exist (the model has ${shape.numLayers})`);
    if (raw.shape.length !== 2) return fail(`${name}: shape ${JSON.stringify(raw.shape)} is not 2-D`);
    const dims = moduleDims(shape, module);
    const r = part === 'A' ? (raw.shape[0] as number) : (raw.shape[1] as number);
    const other = part === 'A' ? raw.shape[1] : raw.shape[0];
    const expectedOther = part === 'A' ? dims.in : dims.out;
    if (other !== expectedOther || r < 1) {
      return fail(`${name}: shape ${JSON.stringify(raw.shape)}, expected ${part === 'A' ? `[r, ${dims.in}]` : `[${dims.out}, r]`}`);
    }
    if (rank === undefined) rank = r;
    else if (r !== rank) return fail(`${name}: rank ${r} differs from the adapter's rank ${rank}`);
    let tensor: { shape: readonly number[]; data: Float32Array };
    try {
      tensor = toFloat32(name, raw);
    } catch (error) {
      return fail((error as Error).message);
    }
    for (const v of tensor.data) if (!Number.isFinite(v)) return fail(`${name}: holds a non-finite value`);
    factors.set(`lora.${layer}.${module}.${part}`, tensor);
  }
  if (rank === undefined) return fail('holds no LoRA tensors');

  const metadataAlpha = file.metadata.lora_alpha === undefined ? undefined : Number(file.metadata.lora_alpha);
  if (metadataAlpha !== undefined && !(metadataAlpha > 0))
    return fail(`__metadata__.lora_alpha ${JSON.stringify(file.metadata.lora_alpha)} is not a positive number`);
  if (metadataAlpha !== undefined && ref.loraAlpha !== undefined && metadataAlpha !== ref.loraAlpha) {
    return fail(`lora_alpha ${ref.loraAlpha} disagrees with the blob's __metadata__.lora_alpha ${metadataAlpha}`);
  }
  const alpha = ref.loraAlpha ?? metadataAlpha;
  if (alpha === undefined) return fail('no lora_alpha (neither in __metadata__ nor in the request)');
  const scale = alpha / rank;

  const feeds: Record<string, ort.Tensor> = {};
  for (let layer = 0; layer < shape.numLayers; layer += 1) {
    for (const module of LORA_MODULES) {
      const dims = moduleDims(shape, module);
      const a = factors.get(`lora.${layer}.${module}.A`);
      const b = factors.get(`lora.${layer}.${module}.B`);
      if ((a === undefined) !== (b === undefined)) {
        return fail(`layer ${layer} ${module}_proj has lora_${a ? 'A' : 'B'} without lora_${a ? 'B' : 'A'}`);
      }
      // A module the adapter does not target contributes nothing: B = 0.
      feeds[`lora.${layer}.${module}.A`] = new ort.Tensor('float32', a?.data ?? new Float32Array(rank * dims.in), [rank, dims.in]);
      feeds[`lora.${layer}.${module}.B`] = new ort.Tensor('float32', b?.data ?? new Float32Array(dims.out * rank), [dims.out, rank]);
    }
  }
  feeds.lora_scale = new ort.Tensor('float32', new Float32Array([scale]), []);
  return { version: ref.version, rank, scale, feeds };
}
