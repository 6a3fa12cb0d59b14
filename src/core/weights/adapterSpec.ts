/**
 * What a candidate adapter must contain, derived from the base model's config
 * and the recipe's LoRA settings — PEFT's tensor names, shapes and dtype
 * (docs/internals.md, "Candidates and the weight store"). The trainer writes
 * to this spec; the gate's verify step checks blobs against it.
 */
import type { AdapterDtype } from '../protocols/trainerProtocol';
import type { SafetensorsFile } from './safetensors';
import { LORA_MODULES, moduleDims, type LoraModule, type PolicyShape } from './policyConfig';

export type LoraPart = 'A' | 'B';

export interface AdapterTensorSpec {
  readonly name: string;
  readonly layer: number;
  readonly module: LoraModule;
  readonly part: LoraPart;
  /** A: [rank, in]; B: [out, rank] (in/out of the base weight: grouped-query k/v are narrower). */
  readonly shape: readonly [number, number];
  readonly dtype: AdapterDtype;
}

export interface LoraSettings {
  readonly rank: number;
  readonly alpha: number;
  readonly targets: readonly LoraModule[];
  /** The dtype the trainer writes (default F32). */
  readonly dtype?: AdapterDtype;
}

/** PEFT's name for a module's LoRA factor. */
export function peftTensorName(layer: number, module: LoraModule, part: LoraPart): string {
  const group = module === 'gate' || module === 'up' || module === 'down' ? 'mlp' : 'self_attn';
  return `base_model.model.model.layers.${layer}.${group}.${module}_proj.lora_${part}.weight`;
}

/** PEFT's `target_modules` entry for a module (`q` → `q_proj`). */
export function peftTargetName(module: LoraModule): `${LoraModule}_proj` {
  return `${module}_proj`;
}

export function loraModuleFromPeft(target: string): LoraModule {
  const module = target.replace(/_proj$/, '');
  const found = LORA_MODULES.find((m) => m === module);
  if (found === undefined) throw new Error(`unknown LoRA target module ${JSON.stringify(target)}`);
  return found;
}

/** Every tensor the adapter must hold, in a stable order (layer, module, A before B). */
export function adapterSpec(shape: PolicyShape, lora: LoraSettings): AdapterTensorSpec[] {
  if (!Number.isInteger(lora.rank) || lora.rank < 1) throw new Error(`LoRA rank must be a positive integer, got ${lora.rank}`);
  if (lora.targets.length === 0) throw new Error('LoRA needs at least one target module');
  const targets = LORA_MODULES.filter((m) => lora.targets.includes(m));
  const dtype = lora.dtype ?? 'F32';
  const out: AdapterTensorSpec[] = [];
  for (let layer = 0; layer < shape.numLayers; layer += 1) {
    for (const module of targets) {
      const dims = moduleDims(shape, module);
      out.push({ name: peftTensorName(layer, module, 'A'), layer, module, part: 'A', shape: [lora.rank, dims.in], dtype });
      out.push({ name: peftTensorName(layer, module, 'B'), layer, module, part: 'B', shape: [dims.out, lora.rank], dtype });
    }
  }
  return out;
}

/**
 * Problems of a parsed blob against the spec: missing, unexpected, wrong
 * shape or dtype. Empty means the structure matches (values are checked
 * separately: finiteness and the update norm are the gate's).
 */
export function adapterSpecProblems(file: SafetensorsFile, spec: readonly AdapterTensorSpec[]): string[] {
  const problems: string[] = [];
  const expected = new Map(spec.map((s) => [s.name, s]));
  for (const s of spec) {
    const t = file.tensors.get(s.name);
    if (t === undefined) {
      problems.push(`missing tensor ${s.name}`);
      continue;
    }
    if (t.dtype !== s.dtype) problems.push(`${s.name}: dtype ${t.dtype}, expected ${s.dtype}`);
    if (t.shape.length !== 2 || t.shape[0] !== s.shape[0] || t.shape[1] !== s.shape[1]) {
      problems.push(`${s.name}: shape ${JSON.stringify(t.shape)}, expected ${JSON.stringify(s.shape)}`);
    }
  }
  for (const name of file.tensors.keys()) if (!expected.has(name)) problems.push(`unexpected tensor ${name}`);
  return problems;
}
