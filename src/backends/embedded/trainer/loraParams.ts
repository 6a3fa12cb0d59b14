/**
 * The trainable LoRA factors, kept in double precision (the optimizer's master
 * copy; the adapter is written as float32). Keys are the graphs' names,
 * `lora.{layer}.{module}.{A|B}`.
 */
import { LORA_MODULES, moduleDims, type LoraModule, type PolicyShape } from '../../../core/weights/policyConfig';
import type { LoraSettings } from '../../../core/weights/adapterSpec';
import { SeededRng } from '../engine/sampler';

export interface LoraTensor {
  readonly layer: number;
  readonly module: LoraModule;
  readonly part: 'A' | 'B';
  /** A: [rank, in]; B: [out, rank]. */
  readonly shape: readonly [number, number];
  readonly data: Float64Array;
}

export function loraKey(layer: number, module: LoraModule, part: 'A' | 'B'): string {
  return `lora.${layer}.${module}.${part}`;
}

export class LoraParams {
  private constructor(
    readonly shape: PolicyShape,
    readonly settings: LoraSettings,
    /** Targeted factors only, in (layer, module, A, B) order. */
    readonly tensors: ReadonlyMap<string, LoraTensor>,
  ) {}

  get scale(): number {
    return this.settings.alpha / this.settings.rank;
  }

  /**
   * PEFT's default initialisation: A ~ kaiming_uniform(a = √5), which is
   * U(−1/√in, 1/√in); B = 0, so a fresh adapter is exactly the base model.
   */
  static init(shape: PolicyShape, settings: LoraSettings, seed: number): LoraParams {
    const rng = new SeededRng(seed);
    return LoraParams.build(shape, settings, (part, dims, data) => {
      if (part === 'B') return;
      const bound = 1 / Math.sqrt(dims.in);
      for (let i = 0; i < data.length; i += 1) data[i] = (2 * rng.next() - 1) * bound;
    });
  }

  /** Factors given by key (e.g. golden vectors); every targeted factor must be present with its shape. */
  static fromValues(shape: PolicyShape, settings: LoraSettings, values: ReadonlyMap<string, ArrayLike<number>>): LoraParams {
    return LoraParams.build(shape, settings, (part, _dims, data, key) => {
      const v = values.get(key);
      if (v === undefined) throw new Error(`LoRA factor ${key} is missing`);
      if (v.length !== data.length) throw new Error(`LoRA factor ${key} has ${v.length} values, expected ${data.length}`);
      for (let i = 0; i < data.length; i += 1) data[i] = v[i] as number;
    });
  }

  private static build(
    shape: PolicyShape,
    settings: LoraSettings,
    fill: (part: 'A' | 'B', dims: { in: number; out: number }, data: Float64Array, key: string) => void,
  ): LoraParams {
    const tensors = new Map<string, LoraTensor>();
    const targets = LORA_MODULES.filter((m) => settings.targets.includes(m));
    for (let layer = 0; layer < shape.numLayers; layer += 1) {
      for (const module of targets) {
        const dims = moduleDims(shape, module);
        for (const part of ['A', 'B'] as const) {
          const tensorShape: [number, number] = part === 'A' ? [settings.rank, dims.in] : [dims.out, settings.rank];
          const data = new Float64Array(tensorShape[0] * tensorShape[1]);
          const key = loraKey(layer, module, part);
          fill(part, dims, data, key);
          tensors.set(key, { layer, module, part, shape: tensorShape, data });
        }
      }
    }
    return new LoraParams(shape, settings, tensors);
  }

  clone(): LoraParams {
    const copy = new Map<string, LoraTensor>();
    for (const [k, t] of this.tensors) copy.set(k, { ...t, data: Float64Array.from(t.data) });
    return new LoraParams(this.shape, this.settings, copy);
  }

  get parameterCount(): number {
    let n = 0;
    for (const t of this.tensors.values()) n += t.data.length;
    return n;
  }

  /** True when every value is finite. */
  allFinite(): boolean {
    for (const t of this.tensors.values()) for (const v of t.data) if (!Number.isFinite(v)) return false;
    return true;
  }
}
