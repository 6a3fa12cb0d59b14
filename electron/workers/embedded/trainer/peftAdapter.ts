/**
 * The candidate as PEFT writes a LoRA adapter (docs/internals.md,
 * "Candidates and the weight store"): `adapter_model.safetensors` with PEFT's
 * tensor names in float32, and `adapter_config.json`, so that Python PEFT
 * (`PeftModel.from_pretrained`) could load it onto the HF base.
 */
import { adapterSpec, adapterSpecProblems, peftTargetName, peftTensorName, type LoraSettings } from '../../../lab/weights/adapterSpec';
import { LORA_MODULES, type PolicyShape } from '../../../lab/weights/policyConfig';
import { parseSafetensors, serializeSafetensors, toFloat32, type Float32Tensor, type RawTensor } from '../../../lab/weights/safetensors';
import { LoraParams } from './loraParams';

/** PEFT's LoraConfig as saved by `save_pretrained` (fields PEFT reads; the rest take its defaults). */
export interface PeftAdapterConfig {
  readonly peft_type: 'LORA';
  readonly task_type: 'CAUSAL_LM';
  readonly r: number;
  readonly lora_alpha: number;
  readonly target_modules: string[];
  readonly lora_dropout: number;
  readonly bias: 'none';
  readonly fan_in_fan_out: false;
  readonly inference_mode: true;
  readonly init_lora_weights: true;
  readonly use_rslora: false;
  readonly use_dora: false;
  readonly modules_to_save: null;
  readonly base_model_name_or_path: string;
}

export function peftAdapterConfig(settings: LoraSettings, baseModelNameOrPath: string): PeftAdapterConfig {
  return {
    peft_type: 'LORA',
    task_type: 'CAUSAL_LM',
    r: settings.rank,
    lora_alpha: settings.alpha,
    target_modules: LORA_MODULES.filter((m) => settings.targets.includes(m)).map(peftTargetName),
    lora_dropout: 0,
    bias: 'none',
    fan_in_fan_out: false,
    inference_mode: true,
    init_lora_weights: true,
    use_rslora: false,
    use_dora: false,
    modules_to_save: null,
    base_model_name_or_path: baseModelNameOrPath,
  };
}

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

/**
 * The safetensors `__metadata__`: `format: pt` as torch writers set it, and the
 * LoRA alpha and rank so the engine can compute scale = alpha / r from the
 * blob alone (engineProtocol: AdapterRef.loraAlpha is optional when present).
 */
export function peftAdapterMetadata(settings: LoraSettings): Record<string, string> {
  return { format: 'pt', lora_alpha: String(settings.alpha), r: String(settings.rank) };
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
