/**
 * The embedded trainer's checkpoint (src/core/protocols/trainerProtocol.ts,
 * "Checkpoints"): one safetensors file of float64 tensors — the adapter's
 * master copy (`param.<key>`, not the float32 the candidate carries) and
 * AdamW's moments (`adam.m.<key>`, `adam.v.<key>`) — with the optimizer's
 * step count in its metadata. Restored, the next step is bit for bit the one
 * an uninterrupted trainer takes.
 */
import type { LoraSettings } from '../../../core/weights/adapterSpec';
import type { PolicyShape } from '../../../core/weights/policyConfig';
import { parseSafetensors, serializeSafetensors, toFloat64, type WritableTensor } from '../../../core/weights/safetensors';
import type { AdamWState } from './adamw';
import { LoraParams } from './loraParams';
import type { LoraTrainer } from './loraTrainer';

export const CHECKPOINT_FORMAT = 'gatelab-embedded-trainer/1';
export const STATE_FILE = 'trainer-state.safetensors';

/** The checkpoint's files (one) for the trainer's current state. */
export function checkpointFiles(trainer: LoraTrainer): Map<string, Uint8Array> {
  const state = trainer.optimizerState();
  const tensors = new Map<string, WritableTensor>();
  for (const [key, t] of trainer.params.tensors) {
    tensors.set(`param.${key}`, { shape: t.shape, data: t.data });
    const m = state.m.get(key);
    const v = state.v.get(key);
    if (m !== undefined && v !== undefined) {
      tensors.set(`adam.m.${key}`, { shape: t.shape, data: m });
      tensors.set(`adam.v.${key}`, { shape: t.shape, data: v });
    }
  }
  const bytes = serializeSafetensors(tensors, { format: CHECKPOINT_FORMAT, adam_steps: String(state.steps), steps: String(trainer.steps) });
  return new Map([[STATE_FILE, bytes]]);
}

/** The adapter and optimizer state a checkpoint holds, checked against the model's shape and the recipe's LoRA. */
export function readCheckpoint(
  files: ReadonlyMap<string, Uint8Array>,
  format: string,
  shape: PolicyShape,
  settings: LoraSettings,
): { params: LoraParams; optimizer: AdamWState } {
  if (format !== CHECKPOINT_FORMAT) throw new Error(`a checkpoint in format ${JSON.stringify(format)} is not this trainer's (${CHECKPOINT_FORMAT})`);
  const bytes = files.get(STATE_FILE);
  if (bytes === undefined) throw new Error(`the checkpoint has no ${STATE_FILE}`);
  const file = parseSafetensors(bytes);
  const steps = Number(file.metadata.adam_steps);
  if (!Number.isInteger(steps) || steps < 0) throw new Error(`the checkpoint's adam_steps ${JSON.stringify(file.metadata.adam_steps)} is not a step count`);
  const values = new Map<string, Float64Array>();
  const m = new Map<string, Float64Array>();
  const v = new Map<string, Float64Array>();
  const tensor = (name: string): Float64Array => {
    const raw = file.tensors.get(name);
    if (raw === undefined) throw new Error(`the checkpoint lacks ${name}`);
    return toFloat64(name, raw);
  };
  // Keys come from the recipe's LoRA: a checkpoint of another rank or other targets fails here.
  for (const key of LoraParams.init(shape, settings, 0).tensors.keys()) {
    values.set(key, tensor(`param.${key}`));
    if (steps > 0) {
      m.set(key, tensor(`adam.m.${key}`));
      v.set(key, tensor(`adam.v.${key}`));
    }
  }
  const params = LoraParams.fromValues(shape, settings, values);
  if (!params.allFinite()) throw new Error('the checkpoint holds non-finite weights');
  return { params, optimizer: { steps, m, v } };
}
