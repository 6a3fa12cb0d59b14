/**
 * What an adapter says about its own LoRA, checked against the recipe: the
 * safetensors `__metadata__` (the embedded engine takes `lora_alpha` from it)
 * and PEFT's adapter_config.json (PEFT and vLLM take r, lora_alpha and the
 * targets from it). Anything that would make an engine apply another scale
 * than alpha / rank — another alpha, rsLoRA's alpha / √r, per-module rank or
 * alpha patterns, DoRA — is a problem, so the gate's norm bound always uses
 * the alpha the engine will apply.
 */
import { z } from 'zod';

export type ExpectedLora = {
  readonly rank: number;
  readonly alpha: number;
  /** PEFT target_modules names (q_proj, …). */
  readonly targets: readonly string[];
};

const emptyOrAbsent = (value: unknown): boolean =>
  value === undefined ||
  value === null ||
  (Array.isArray(value) && value.length === 0) ||
  (typeof value === 'object' && value !== null && Object.keys(value).length === 0);

const peftConfigSchema = z.looseObject({
  peft_type: z.string(),
  r: z.number(),
  lora_alpha: z.number(),
  target_modules: z.union([z.array(z.string()), z.string()]),
  use_rslora: z.boolean().optional(),
  use_dora: z.boolean().optional(),
  bias: z.string().optional(),
  modules_to_save: z.unknown().optional(),
  rank_pattern: z.unknown().optional(),
  alpha_pattern: z.unknown().optional(),
  layers_to_transform: z.unknown().optional(),
});

/** Problems of the metadata (`lora_alpha`, `r`, when present) and of adapter_config.json (when given), against the recipe. */
export function loraConfigProblems(metadata: Readonly<Record<string, string>>, adapterConfig: unknown, expected: ExpectedLora): string[] {
  const problems: string[] = [];
  const numberIn = (key: 'lora_alpha' | 'r', want: number) => {
    const raw = metadata[key];
    if (raw === undefined) return;
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value)) problems.push(`safetensors metadata ${key} ${JSON.stringify(raw)} is not a number`);
    else if (value !== want) problems.push(`safetensors metadata ${key} ${value} ≠ the recipe's ${want}`);
  };
  numberIn('lora_alpha', expected.alpha);
  numberIn('r', expected.rank);
  if (adapterConfig === undefined) return problems;

  const parsed = peftConfigSchema.safeParse(adapterConfig);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    problems.push(`adapter_config.json: ${issue?.path.join('.') || '(config)'} ${issue?.message ?? 'is invalid'}`);
    return problems;
  }
  const c = parsed.data;
  if (c.peft_type !== 'LORA') problems.push(`adapter_config.json peft_type ${JSON.stringify(c.peft_type)}, not LORA`);
  if (c.r !== expected.rank) problems.push(`adapter_config.json r ${c.r} ≠ the recipe's ${expected.rank}`);
  if (c.lora_alpha !== expected.alpha) problems.push(`adapter_config.json lora_alpha ${c.lora_alpha} ≠ the recipe's ${expected.alpha}`);
  if (typeof c.target_modules === 'string') {
    problems.push(`adapter_config.json target_modules is a pattern (${JSON.stringify(c.target_modules)}); the recipe's modules must be listed`);
  } else {
    const have = [...new Set(c.target_modules)].sort();
    const want = [...new Set(expected.targets)].sort();
    if (have.join(',') !== want.join(',')) problems.push(`adapter_config.json target_modules [${have.join(', ')}] ≠ the recipe's [${want.join(', ')}]`);
  }
  if (c.use_rslora === true) problems.push('adapter_config.json use_rslora: an engine would scale by alpha/√r, not alpha/r');
  if (c.use_dora === true) problems.push('adapter_config.json use_dora: DoRA is not a plain LoRA update');
  if (c.bias !== undefined && c.bias !== 'none') problems.push(`adapter_config.json bias ${JSON.stringify(c.bias)}: only LoRA factors are verified`);
  if (!emptyOrAbsent(c.rank_pattern)) problems.push('adapter_config.json rank_pattern: per-module ranks differ from the recipe');
  if (!emptyOrAbsent(c.alpha_pattern)) problems.push('adapter_config.json alpha_pattern: per-module alphas differ from the recipe');
  if (!emptyOrAbsent(c.modules_to_save)) problems.push('adapter_config.json modules_to_save: full modules would replace base weights');
  if (!emptyOrAbsent(c.layers_to_transform)) problems.push('adapter_config.json layers_to_transform: the recipe adapts every layer');
  return problems;
}
