/**
 * The limit of decoding for this model on this machine: decode.onnx run
 * through onnxruntime alone — no sampling, no calculator, no worker, no
 * server — prefill of a prompt, then one token per step with the KV cache,
 * weights bound once as tensors (the cheapest way to call the graph).
 * bench:engine reports every served figure as a ratio to this.
 */
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { LORA_MODULES, moduleDims, policyShape, readPolicyConfig, type PolicyShape } from '../electron/lab/weights/policyConfig';
import { readSafetensors, toFloat32 } from '../electron/lab/weights/safetensors';

export type ForwardLimit = {
  promptTokens: number;
  /** Median wall time of one prefill of `promptTokens` tokens. */
  prefillMs: number;
  decodeSteps: number;
  /** Median wall time of one single-token decode step over the whole run of steps. */
  decodeStepMs: number;
  prefillTokS: number;
  decodeTokS: number;
  repeats: number;
};

export type ForwardLimitOptions = {
  modelDir: string;
  promptIds: readonly number[];
  decodeSteps: number;
  repeats: number;
  sessionOptions: ort.InferenceSession.SessionOptions;
};

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

const int64 = (values: readonly number[], dims: number[]): ort.Tensor =>
  new ort.Tensor('int64', BigInt64Array.from(values, (v) => BigInt(v)), dims);

/** Base weights and a rank-1 zero adapter (B = 0: the base model), as graph inputs. */
async function weightFeeds(modelDir: string, shape: PolicyShape): Promise<Record<string, ort.Tensor>> {
  const feeds: Record<string, ort.Tensor> = {};
  const base = await readSafetensors(join(modelDir, 'base.safetensors'));
  for (const [name, raw] of base.tensors) {
    const tensor = toFloat32(name, raw);
    feeds[name] = new ort.Tensor('float32', tensor.data, [...tensor.shape]);
  }
  for (let layer = 0; layer < shape.numLayers; layer += 1) {
    for (const module of LORA_MODULES) {
      const dims = moduleDims(shape, module);
      feeds[`lora.${layer}.${module}.A`] = new ort.Tensor('float32', new Float32Array(dims.in), [1, dims.in]);
      feeds[`lora.${layer}.${module}.B`] = new ort.Tensor('float32', new Float32Array(dims.out), [dims.out, 1]);
    }
  }
  feeds.lora_scale = new ort.Tensor('float32', new Float32Array([1]), []);
  return feeds;
}

export async function measureForwardLimit(options: ForwardLimitOptions): Promise<ForwardLimit> {
  const shape = policyShape(await readPolicyConfig(join(options.modelDir, 'config.json')));
  const session = await ort.InferenceSession.create(join(options.modelDir, 'decode.onnx'), options.sessionOptions);
  const weights = await weightFeeds(options.modelDir, shape);
  const headDim = shape.hiddenSize / shape.numHeads;
  const emptyCache = (): ort.Tensor => new ort.Tensor('float32', new Float32Array(0), [shape.numLayers, 1, shape.numHeads, 0, headDim]);
  const prompt = options.promptIds;
  const prefillTimes: number[] = [];
  const stepTimes: number[] = [];

  // One untimed warm-up pass, then `repeats` timed ones.
  for (let repeat = 0; repeat <= options.repeats; repeat += 1) {
    const started = performance.now();
    let out = await session.run({
      ...weights,
      input_ids: int64(prompt, [1, prompt.length]),
      position_ids: int64(prompt.map((_, i) => i), [1, prompt.length]),
      attention_mask: int64(prompt.map(() => 1), [1, prompt.length]),
      past_key: emptyCache(),
      past_value: emptyCache(),
    });
    const prefillMs = performance.now() - started;
    let position = prompt.length;
    const decodeStart = performance.now();
    for (let step = 0; step < options.decodeSteps; step += 1) {
      // The token fed back is fixed: which one it is does not change the cost.
      out = await session.run({
        ...weights,
        input_ids: int64([prompt[prompt.length - 1] ?? 0], [1, 1]),
        position_ids: int64([position], [1, 1]),
        attention_mask: int64(Array.from({ length: position + 1 }, () => 1), [1, position + 1]),
        past_key: out.present_key as ort.Tensor,
        past_value: out.present_value as ort.Tensor,
      });
      position += 1;
    }
    const decodeMs = performance.now() - decodeStart;
    if (repeat > 0) {
      prefillTimes.push(prefillMs);
      stepTimes.push(decodeMs / options.decodeSteps);
    }
  }
  await session.release();
  const prefillMs = median(prefillTimes);
  const decodeStepMs = median(stepTimes);
  return {
    promptTokens: prompt.length,
    prefillMs,
    decodeSteps: options.decodeSteps,
    decodeStepMs,
    prefillTokS: (prompt.length / prefillMs) * 1000,
    decodeTokS: 1000 / decodeStepMs,
    repeats: options.repeats,
  };
}
