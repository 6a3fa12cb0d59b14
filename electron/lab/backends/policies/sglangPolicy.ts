/**
 * `policy.kind: sglang` (Reef's rollout engine): GPU hosts only — SGLang has
 * no CPU build. The server would be started like vLLM's (vllmPolicy.ts: one
 * supervised process per role, argument array, loopback, token, the role's
 * CUDA_VISIBLE_DEVICES; `python -m sglang.launch_server --model-path DIR
 * --host 127.0.0.1 --port P --api-key T --tp N --enable-lora --max-lora-rank R
 * --max-loaded-loras 3 --lora-target-modules all`), but its engine client
 * (SGLang's `/load_lora_adapter`, its log-prob fields) is not written or
 * tested yet: no host this build was made on has a GPU. So the kind is
 * refused with what is missing, on every host, and a GPU host can run the
 * same recipe with `policy.kind: vllm` today.
 */
import type { Recipe } from '../../recipe/recipeSchema';
import type { HostGpus } from '../../devices/hostGpus';
import { BackendUnavailableError } from '../backendUnavailable';
import type { PolicyBackend } from '../policyBackend';
import { findEngineEnvironment } from './httpEngine/engineEnvironment';

type SglangPolicyConfig = Extract<Recipe['policy'], { kind: 'vllm' | 'sglang' }>;

/** Every reason this host and build cannot run the SGLang engine. */
export function sglangMissing(policy: Pick<SglangPolicyConfig, 'model'>, host: HostGpus | undefined, env?: Readonly<Record<string, string | undefined>>): string[] {
  const reasons: string[] = [];
  if (host && host.gpus.length === 0) reasons.push(`policy engine 'sglang' (${policy.model}) needs an NVIDIA GPU; this host has none${host.problem ? ` (${host.problem})` : ''}`);
  const environment = findEngineEnvironment('sglang', env);
  if ('missing' in environment) reasons.push(`policy engine 'sglang': ${environment.missing}`);
  reasons.push(
    "policy engine 'sglang': this build has no SGLang engine client yet (its adapter-loading and log-prob API differ from vLLM's); use policy.kind: vllm, which runs the same recipe on GPU hosts",
  );
  return reasons;
}

export function sglangPolicy(policy: SglangPolicyConfig, host?: HostGpus, env?: Readonly<Record<string, string | undefined>>): PolicyBackend {
  throw new BackendUnavailableError(sglangMissing(policy, host, env));
}
