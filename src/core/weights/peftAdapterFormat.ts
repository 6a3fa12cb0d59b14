/**
 * A LoRA adapter as PEFT writes it (docs/internals.md, "Candidates and the
 * weight store"): `adapter_config.json` (PEFT's LoraConfig) and the
 * safetensors `__metadata__` beside the tensors. Every writer in the lab and
 * every trainer backend uses these, so what the gate verifies is what PEFT
 * and vLLM load.
 */
import type { LoraSettings } from './adapterSpec';
import { LORA_MODULES } from './policyConfig';
import { peftTargetName } from './adapterSpec';

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

/**
 * The safetensors `__metadata__`: `format: pt` as torch writers set it, and
 * the LoRA alpha and rank so an engine can compute scale = alpha / r from the
 * blob alone (the gate checks them against the recipe when present).
 */
export function peftAdapterMetadata(settings: Pick<LoraSettings, 'rank' | 'alpha'>): Record<string, string> {
  return { format: 'pt', lora_alpha: String(settings.alpha), r: String(settings.rank) };
}
