/** The model and policy section the vLLM tests and benchmarks use: SmolLM2-135M-Instruct, as `npm run setup:python` installs it. */
import { policySchema, type Recipe } from '../../electron/lab/recipe/recipeSchema';

export const SMOLLM2 = 'HuggingFaceTB/SmolLM2-135M-Instruct';

export function recipePolicyForTests(): Extract<Recipe['policy'], { kind: 'vllm' | 'sglang' }> {
  const policy = policySchema.parse({ kind: 'vllm', model: SMOLLM2, sampling: { temperature: 0.6, top_p: 0.95, top_k: 20, max_tokens: 512 } });
  if (policy.kind === 'embedded') throw new Error('unreachable');
  return policy;
}
