/** The model and policy section the vLLM tests and benchmarks use: SmolLM2-135M-Instruct, as `npm run setup:python` installs it. */
import type { GenerateRequest } from '../../src/core/protocols/engineProtocol';
import type { HttpEngineSection } from '../../src/backends/httpEngine/httpEngineSection';
import { vllmPolicySection } from '../../src/backends/vllm/vllmBackend';

export const SMOLLM2 = 'HuggingFaceTB/SmolLM2-135M-Instruct';

export function recipePolicyForTests(): HttpEngineSection {
  return vllmPolicySection.parse({ kind: 'vllm', model: SMOLLM2, sampling: { temperature: 0.6, top_p: 0.95, top_k: 20, max_tokens: 512 } });
}

/** The engine checks' question: a small word problem, `n` apples. */
export const engineQuestion = (n: number) => `Tom has ${n} apples and buys ${n + 3} more. How many apples does he have now? Show your steps.`;

/** A generate request at the recipe's sampling (T 0.6, top-p 0.95, top-k 20) with its top-`k`. */
export function engineRequest(n: number, seed: number, maxTokens: number, k: number): GenerateRequest {
  return { messages: [{ role: 'user', content: engineQuestion(n) }], sampling: { temperature: 0.6, topP: 0.95, topK: 20, maxTokens }, seed, logprobsTopK: k };
}
