/**
 * Forward-only logits from the engine's decode.onnx with an empty KV cache
 * (P = 0): the same forward as grad.onnx at about a third of its cost, since
 * no backward runs. decodeForward.test.ts checks the two agree on the real model.
 */
import { LORA_MODULES, moduleDims } from '../../../core/weights/policyConfig';
import { loraKey, type LoraParams } from './loraParams';
import type { FloatArray, LogitsSource } from './logitsSource';
import type { PolicyShape } from '../../../core/weights/policyConfig';
import { ort } from '../engine/ortSession';
import type { PaddedBatch } from './sequenceBatch';

export class DecodeForward implements LogitsSource {
  private readonly zeroLora: Record<string, ort.Tensor> = {};

  constructor(
    private readonly session: ort.InferenceSession,
    readonly shape: PolicyShape,
    /** The base weights by HF name, as decode.onnx takes them. */
    private readonly baseFeeds: Readonly<Record<string, ort.Tensor>>,
  ) {
    for (let layer = 0; layer < shape.numLayers; layer += 1) {
      for (const module of LORA_MODULES) {
        const dims = moduleDims(shape, module);
        this.zeroLora[loraKey(layer, module, 'A')] = new ort.Tensor('float32', new Float32Array(dims.in), [1, dims.in]);
        this.zeroLora[loraKey(layer, module, 'B')] = new ort.Tensor('float32', new Float32Array(dims.out), [dims.out, 1]);
      }
    }
  }

  async forward(batch: PaddedBatch, lora: LoraParams | null): Promise<FloatArray> {
    const { numLayers, numHeads, hiddenSize } = this.shape;
    const dims = [batch.batch, batch.time];
    const feeds: Record<string, ort.Tensor> = {
      ...this.baseFeeds,
      ...this.zeroLora,
      input_ids: new ort.Tensor('int64', batch.inputIds, dims),
      position_ids: new ort.Tensor('int64', batch.positionIds, dims),
      attention_mask: new ort.Tensor('int64', batch.attentionMask, dims),
      lora_scale: new ort.Tensor('float32', new Float32Array([lora === null ? 0 : lora.scale]), []),
    };
    // The empty cache (P = 0), stacked [L,B,H,0,Dh] or per layer past_key.{i} [B,H,0,Dh], whichever the graph takes.
    const headDim = hiddenSize / numHeads;
    if (this.session.inputNames.includes('past_key')) {
      const empty = new ort.Tensor('float32', new Float32Array(0), [numLayers, batch.batch, numHeads, 0, headDim]);
      feeds.past_key = empty;
      feeds.past_value = empty;
    } else {
      const empty = new ort.Tensor('float32', new Float32Array(0), [batch.batch, numHeads, 0, headDim]);
      for (let layer = 0; layer < numLayers; layer += 1) {
        feeds[`past_key.${layer}`] = empty;
        feeds[`past_value.${layer}`] = empty;
      }
    }
    if (lora !== null) {
      for (const [key, t] of lora.tensors) feeds[key] = new ort.Tensor('float32', Float32Array.from(t.data), [...t.shape]);
    }
    const out = await this.session.run(feeds, ['logits']);
    const logits = out.logits?.data;
    if (!(logits instanceof Float32Array)) throw new Error('decode.onnx returned no float32 logits');
    return logits;
  }
}
