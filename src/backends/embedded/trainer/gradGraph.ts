/**
 * grad.onnx in onnxruntime-node (docs/internals.md, "grad.onnx"): given the
 * base weights, a LoRA adapter and dLoss/dlogits, one call returns the
 * logits and the gradient of every LoRA factor. The heavy math (about 100
 * GFLOP/s here against about 1 in plain JavaScript: docs/design.md, The embedded default) stays in ORT;
 * this file only feeds tensors in and out.
 *
 * The same class runs the float64 tiny graph of the finite-difference test:
 * the graph's input type decides the precision of everything fed to it.
 */
import * as ort from 'onnxruntime-node';
import { LORA_MODULES, moduleDims, type PolicyShape } from '../../../core/weights/policyConfig';
import type { FloatArray, LogitsSource } from './logitsSource';
import { loraKey, type LoraParams } from './loraParams';
import type { PaddedBatch } from './sequenceBatch';

export type GraphDtype = 'float32' | 'float64';
export type { FloatArray } from './logitsSource';

export interface NamedTensor {
  readonly shape: readonly number[];
  readonly data: ArrayLike<number>;
}

export interface GraphResult {
  /** [batch, time, vocab] */
  readonly logits: FloatArray;
  /** Targeted LoRA factors' gradients (double precision); null for a forward-only call. */
  readonly grads: Map<string, Float64Array> | null;
}

function toDtype(data: ArrayLike<number>, dtype: GraphDtype): FloatArray {
  if (dtype === 'float32') return data instanceof Float32Array ? data : Float32Array.from(data);
  return data instanceof Float64Array ? data : Float64Array.from(data);
}

export class GradGraph implements LogitsSource {
  /** Feeds that never change: the base weights and the zero adapter of untargeted modules. */
  private readonly fixedFeeds: Record<string, ort.Tensor> = {};
  private readonly zeroLora: Record<string, ort.Tensor> = {};

  private constructor(
    private readonly session: ort.InferenceSession,
    readonly shape: PolicyShape,
    readonly dtype: GraphDtype,
    base: ReadonlyMap<string, NamedTensor>,
  ) {
    for (const meta of session.inputMetadata) {
      if (!meta.name.startsWith('model.')) continue;
      const t = base.get(meta.name);
      if (t === undefined) throw new Error(`base weights lack ${meta.name}, an input of grad.onnx`);
      // A graph exported for another config fails here, not with an opaque ORT error mid-step.
      const declared = meta.isTensor ? meta.shape : [];
      if (declared.length !== t.shape.length || declared.some((d, i) => typeof d === 'number' && d !== t.shape[i])) {
        throw new Error(
          `grad.onnx expects ${meta.name} as ${JSON.stringify(declared)}, the base has ${JSON.stringify(t.shape)}: re-export it for this config.json`,
        );
      }
      this.fixedFeeds[meta.name] = new ort.Tensor(dtype, toDtype(t.data, dtype), [...t.shape]);
    }
    for (let layer = 0; layer < shape.numLayers; layer += 1) {
      for (const module of LORA_MODULES) {
        const dims = moduleDims(shape, module);
        // Rank 1 and zero: the module contributes nothing and its gradients are ignored.
        this.zeroLora[loraKey(layer, module, 'A')] = new ort.Tensor(dtype, new (dtype === 'float32' ? Float32Array : Float64Array)(dims.in), [1, dims.in]);
        this.zeroLora[loraKey(layer, module, 'B')] = new ort.Tensor(dtype, new (dtype === 'float32' ? Float32Array : Float64Array)(dims.out), [dims.out, 1]);
      }
    }
  }

  static async open(path: string, shape: PolicyShape, base: ReadonlyMap<string, NamedTensor>, threads?: number): Promise<GradGraph> {
    const options: ort.InferenceSession.SessionOptions = {
      executionProviders: ['cpu'],
      graphOptimizationLevel: 'all',
      ...(threads !== undefined ? { intraOpNumThreads: threads, interOpNumThreads: 1 } : {}),
    };
    const session = await ort.InferenceSession.create(path, options);
    const meta = session.inputMetadata.find((m) => m.name === 'grad_logits');
    if (meta === undefined || !meta.isTensor) throw new Error(`${path} has no grad_logits input: not a grad graph`);
    if (meta.type !== 'float32' && meta.type !== 'float64') throw new Error(`${path}: grad_logits is ${meta.type}, expected float32 or float64`);
    return new GradGraph(session, shape, meta.type, base);
  }

  /** Forward through grad.onnx (the backward runs too): the fallback when no decode.onnx is at hand. */
  async forward(batch: PaddedBatch, lora: LoraParams | null): Promise<FloatArray> {
    return (await this.run(batch, lora, null)).logits;
  }

  async release(): Promise<void> {
    await this.session.release();
  }

  /**
   * Runs the graph. `lora` null = the frozen base (LoRA off). `gradLogits`
   * null = forward only (zeros are fed; the gradients are not read).
   */
  async run(batch: PaddedBatch, lora: LoraParams | null, gradLogits: FloatArray | null): Promise<GraphResult> {
    const { batch: b, time: t } = batch;
    const v = this.shape.vocabSize;
    const dims = [b, t];
    const feeds: Record<string, ort.Tensor> = {
      ...this.fixedFeeds,
      ...this.zeroLora,
      input_ids: new ort.Tensor('int64', batch.inputIds, dims),
      position_ids: new ort.Tensor('int64', batch.positionIds, dims),
      attention_mask: new ort.Tensor('int64', batch.attentionMask, dims),
      lora_scale: new ort.Tensor(this.dtype, toDtype([lora === null ? 0 : lora.scale], this.dtype), []),
      grad_logits: new ort.Tensor(
        this.dtype,
        gradLogits === null ? new (this.dtype === 'float32' ? Float32Array : Float64Array)(b * t * v) : toDtype(gradLogits, this.dtype),
        [b, t, v],
      ),
    };
    if (lora !== null) {
      for (const [key, tensor] of lora.tensors) feeds[key] = new ort.Tensor(this.dtype, toDtype(tensor.data, this.dtype), [...tensor.shape]);
    }
    const fetches = gradLogits === null || lora === null ? ['logits'] : ['logits', ...[...(lora?.tensors.keys() ?? [])].map((k) => `grad.${k}`)];
    const out = await this.session.run(feeds, fetches);
    const logits = out.logits?.data;
    if (!(logits instanceof Float32Array || logits instanceof Float64Array)) throw new Error('grad.onnx returned no float logits');
    if (gradLogits === null || lora === null) return { logits, grads: null };
    const grads = new Map<string, Float64Array>();
    for (const key of lora.tensors.keys()) {
      const g = out[`grad.${key}`]?.data;
      if (!(g instanceof Float32Array || g instanceof Float64Array)) throw new Error(`grad.onnx returned no gradient for ${key}`);
      grads.set(key, Float64Array.from(g));
    }
    return { logits, grads };
  }
}
