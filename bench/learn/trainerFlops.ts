/**
 * Floating-point operations of the trainer's graph calls, counted from the
 * shapes (matrix products only: 2·m·n·k each; the element-wise work is
 * small next to them and not counted). This is what the trainer's matrix-
 * product throughput is measured in.
 */
import { moduleDims, type LoraModule, type PolicyShape } from '../../src/core/weights/policyConfig';

const ALL_MODULES: readonly LoraModule[] = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'];

function linearWeights(shape: PolicyShape): number {
  return ALL_MODULES.reduce((n, m) => n + moduleDims(shape, m).in * moduleDims(shape, m).out, 0);
}

function loraWidth(shape: PolicyShape): number {
  // Every module carries a LoRA input (rank r when targeted, rank 1 zeros otherwise); count the targeted ones at r.
  return ALL_MODULES.reduce((n, m) => n + moduleDims(shape, m).in + moduleDims(shape, m).out, 0);
}

/** A forward pass over a padded [batch, time] call (decode.onnx with P = 0). */
export function forwardFlops(shape: PolicyShape, rank: number, batch: number, time: number): number {
  const d = shape.hiddenSize;
  const perToken = shape.numLayers * (2 * linearWeights(shape) + 2 * rank * loraWidth(shape)) + 2 * d * shape.vocabSize;
  const attention = shape.numLayers * 4 * time * time * d;
  return batch * (time * perToken + attention);
}

/**
 * One grad.onnx call: its forward, then the backward — dX of every linear
 * layer (the frozen weights get no gradient), the four LoRA products per
 * module (dz, dx via A, dB, dA), the tied head, and attention's four products.
 */
export function gradFlops(shape: PolicyShape, rank: number, batch: number, time: number): number {
  const d = shape.hiddenSize;
  const backwardPerToken = shape.numLayers * (2 * linearWeights(shape) + 4 * rank * loraWidth(shape)) + 2 * d * shape.vocabSize;
  const backwardAttention = shape.numLayers * 8 * time * time * d;
  return forwardFlops(shape, rank, batch, time) + batch * (time * backwardPerToken + backwardAttention);
}
