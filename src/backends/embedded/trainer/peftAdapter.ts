/**
 * The embedded trainer's adapter as PEFT writes one (docs/internals.md,
 * "Candidates and the weight store"): `adapter_model.safetensors` with PEFT's
 * tensor names in float32 (config and metadata: src/core/weights/peftAdapterFormat.ts),
 * so that Python PEFT (`PeftModel.from_pretrained`) could load it onto the HF base.
 */
import { adapterSpec, adapterSpecProblems, peftTensorName, type LoraSettings } from '../../../core/weights/adapterSpec';
import { peftAdapterMetadata } from '../../../core/weights/peftAdapterFormat';
import type { PolicyShape } from '../../../core/weights/policyConfig';
import { parseSafetensors, serializeSafetensors, toFloat32, type Float32Tensor, type RawTensor } from '../../../core/weights/safetensors';
import { LoraParams } from './loraParams';

/** The adapter's tensors under PEFT's names, float32, in the spec's order. */
export function peftTensors(params: LoraParams): Map<string, Float32Tensor> {
  const out = new Map<string, Float32Tensor>();
  for (const spec of adapterSpec(params.shape, params.settings)) {
    const t = params.tensors.get(`lora.${spec.layer}.${spec.module}.${spec.part}`);
    if (t === undefined) throw new Error(`the adapter lacks ${spec.name}`);
    out.set(peftTensorName(spec.layer, spec.module, spec.part), { shape: [...spec.shape], data: Float32Array.from(t.data) });
  }
  return out;
}

/** The safetensors bytes of the adapter (deterministic: same weights, same bytes, same sha256). */
export function serializePeftAdapter(params: LoraParams): Uint8Array {
  if (!params.allFinite()) throw new Error('refusing to write an adapter with non-finite weights');
  return serializeSafetensors(peftTensors(params), peftAdapterMetadata(params.settings));
}

/** Reads an adapter this module wrote back into trainable factors (resuming after a restart). */
export function parsePeftAdapter(bytes: Uint8Array, shape: PolicyShape, settings: LoraSettings): LoraParams {
  const file = parseSafetensors(bytes);
  const problems = adapterSpecProblems(file, adapterSpec(shape, settings));
  if (problems.length > 0) throw new Error(`the adapter does not match its spec: ${problems.slice(0, 3).join('; ')}`);
  const values = new Map<string, Float32Array>();
  for (const spec of adapterSpec(shape, settings)) {
    values.set(`lora.${spec.layer}.${spec.module}.${spec.part}`, toFloat32(spec.name, file.tensors.get(spec.name) as RawTensor).data);
  }
  const params = LoraParams.fromValues(shape, settings, values);
  if (!params.allFinite()) throw new Error('the adapter holds non-finite weights');
  return params;
}
