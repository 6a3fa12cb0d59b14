/**
 * The limit of decoding for this model on this machine: decode.onnx run
 * through onnxruntime alone — no sampling, no calculator, no worker, no
 * server — prefill of a prompt, then one token per step with the KV cache,
 * weights bound once as tensors (the cheapest way to call the graph), under
 * the engine's own session options. bench:engine reports every served figure
 * as a ratio to this.
 */
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { LORA_MODULES, moduleDims, policyShape, readPolicyConfig, type PolicyShape } from '../src/core/weights/policyConfig';
import { readSafetensors, toFloat32 } from '../src/core/weights/safetensors';
import { detectCacheLayout, emptyBlocks, pastFeeds, presentBlocks, type CacheLayout } from '../src/backends/embedded/engine/cacheLayout';

export type ForwardTiming = {
  promptTokens: number;
  /** One forward pass over the whole prompt. */
  prefillMs: number;
  decodeSteps: number;
  /** All single-token decode steps together. */
  decodeMs: number;
  /** CPU time of this process (all threads) for the prefill. */
  prefillCpuMs: number;
  /** After each decode step: wall and CPU time since the first step began (to price any prefix of the steps). */
  stepEndsMs: number[];
  stepEndsCpuMs: number[];
};

/** CPU time of this process, all threads (getrusage: cheap enough to read every step). */
const processCpuMs = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

const int64 = (values: readonly number[], dims: number[]): ort.Tensor =>
  new ort.Tensor(
    'int64',
    BigInt64Array.from(values, (v) => BigInt(v)),
    dims,
  );

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

export class BareForwardPass {
  private constructor(
    private readonly session: ort.InferenceSession,
    private readonly weights: Record<string, ort.Tensor>,
    private readonly shape: PolicyShape,
    /** Stacked or per-layer cache, as the file has it (the engine reads it the same way). */
    private readonly layout: CacheLayout,
  ) {}

  static async open(modelDir: string, sessionOptions: ort.InferenceSession.SessionOptions): Promise<BareForwardPass> {
    const shape = policyShape(await readPolicyConfig(join(modelDir, 'config.json')));
    const session = await ort.InferenceSession.create(join(modelDir, 'decode.onnx'), sessionOptions);
    return new BareForwardPass(session, await weightFeeds(modelDir, shape), shape, detectCacheLayout(session, shape.numLayers));
  }

  /** Prefill `promptIds`, then `steps` single-token steps; the token fed back does not change the cost. */
  async time(promptIds: readonly number[], steps: number): Promise<ForwardTiming> {
    const { numLayers, numHeads, hiddenSize } = this.shape;
    const emptyCache = pastFeeds(
      this.layout,
      emptyBlocks(
        this.layout,
        { layers: numLayers, heads: numHeads, headDim: hiddenSize / numHeads },
        1,
        (dims) => new ort.Tensor('float32', new Float32Array(0), dims),
      ),
    );
    const started = performance.now();
    const cpuStarted = processCpuMs();
    let out = await this.session.run({
      ...this.weights,
      input_ids: int64(promptIds, [1, promptIds.length]),
      position_ids: int64(
        promptIds.map((_, i) => i),
        [1, promptIds.length],
      ),
      attention_mask: int64(
        promptIds.map(() => 1),
        [1, promptIds.length],
      ),
      ...emptyCache,
    });
    const prefillMs = performance.now() - started;
    const decodeCpuStart = processCpuMs();
    const prefillCpuMs = decodeCpuStart - cpuStarted;
    const stepEndsMs: number[] = [];
    const stepEndsCpuMs: number[] = [];
    let position = promptIds.length;
    const decodeStart = performance.now();
    for (let step = 0; step < steps; step += 1) {
      out = await this.session.run({
        ...this.weights,
        input_ids: int64([promptIds[promptIds.length - 1] ?? 0], [1, 1]),
        position_ids: int64([position], [1, 1]),
        attention_mask: int64(
          Array.from({ length: position + 1 }, () => 1),
          [1, position + 1],
        ),
        ...pastFeeds(this.layout, presentBlocks(this.layout, out)),
      });
      position += 1;
      stepEndsMs.push(performance.now() - decodeStart);
      stepEndsCpuMs.push(processCpuMs() - decodeCpuStart);
    }
    return {
      promptTokens: promptIds.length,
      prefillMs,
      decodeSteps: steps,
      decodeMs: performance.now() - decodeStart,
      prefillCpuMs,
      stepEndsMs,
      stepEndsCpuMs,
    };
  }

  release(): Promise<void> {
    return this.session.release();
  }
}
