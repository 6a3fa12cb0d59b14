/** The model and policy section the vLLM tests and benchmarks use: SmolLM2-135M-Instruct, as `npm run setup:python` installs it. */
import type { GenerateRequest } from '../../src/core/protocols/engineProtocol';
import { policySchema, type Recipe } from '../../src/core/recipe/recipeSchema';

export const SMOLLM2 = 'HuggingFaceTB/SmolLM2-135M-Instruct';

export function recipePolicyForTests(): Extract<Recipe['policy'], { kind: 'vllm' | 'sglang' }> {
  const policy = policySchema.parse({ kind: 'vllm', model: SMOLLM2, sampling: { temperature: 0.6, top_p: 0.95, top_k: 20, max_tokens: 512 } });
  if (policy.kind === 'embedded') throw new Error('unreachable');
  return policy;
}

/** The engine checks' question: a small word problem, `n` apples. */
export const engineQuestion = (n: number) => `Tom has ${n} apples and buys ${n + 3} more. How many apples does he have now? Show your steps.`;

/** A generate request at the recipe's sampling (T 0.6, top-p 0.95, top-k 20) with its top-`k`. */
export function engineRequest(n: number, seed: number, maxTokens: number, k: number): GenerateRequest {
  return { messages: [{ role: 'user', content: engineQuestion(n) }], sampling: { temperature: 0.6, topP: 0.95, topK: 20, maxTokens }, seed, logprobsTopK: k };
}
