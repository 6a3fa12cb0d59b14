/**
 * A forward pass that returns logits for a padded batch, with the adapter or
 * with LoRA off (null). The trainer needs forward-only passes for the current
 * policy's log-probs, the OPD teacher and the KL reference; grad.onnx can do
 * them (zero grad_logits) but onnxruntime runs its whole backward anyway, so
 * the trainer prefers decode.onnx with an empty cache (docs/internals.md:
 * "the forward for log-probs can be decode.onnx with P = 0").
 */
import type { PolicyShape } from '../../../core/weights/policyConfig';
import type { LoraParams } from './loraParams';
import type { PaddedBatch } from './sequenceBatch';

export type FloatArray = Float32Array | Float64Array;

export interface LogitsSource {
  readonly shape: PolicyShape;
  /** [batch, time, vocab] logits. */
  forward(batch: PaddedBatch, lora: LoraParams | null): Promise<FloatArray>;
}

/** One graph call of a step, for throughput accounting (bench:learn counts its FLOPs). */
export interface GraphCall {
  readonly kind: 'forward' | 'grad';
  readonly batch: number;
  readonly time: number;
}
