/**
 * `policy.kind: sglang` (Reef's rollout engine): each engine role (serving,
 * probe) is its own SGLang server, `python -m sglang.launch_server`, started
 * and supervised by the lab exactly as vLLM's are (httpEngine/
 * startHttpEngine.ts: an argument array, a loopback port, a per-launch
 * token, the role's CUDA_VISIBLE_DEVICES, /health, restart with backoff),
 * with its flags and environment from sglang/sglangServerArgs.ts. The lab
 * talks to it through SglangEngineClient (the engine protocol over SGLang's
 * native HTTP API).
 *
 * GPU hosts only. SGLang 0.5.23 from PyPI is a CUDA build (torch 2.14.1 with
 * CUDA 13, flashinfer, sglang-kernel 0.4.10). Tried on this repository's
 * CPU-only build machine (SmolLM2-135M, `--device cpu`): without
 * SGLANG_USE_CPU_ENGINE=1 the model's rotary embedding imports
 * `vllm._custom_ops` and the scheduler dies; with it, loading the model
 * imports `sgl_kernel`, whose only operator library in the PyPI wheel is the
 * CUDA one (`sgl_kernel/sm100/common_ops.abi3.so`: "libcuda.so.1: cannot
 * open shared object file"). SGLang's CPU engine needs sglang-kernel built
 * from source for CPUs. So the end-to-end check of this backend is
 * scripts/gpu-check.sh's SGLang row (scripts/gpu-check-sglang.ts), run where
 * a GPU is; the unit tests check its command line and how it reads SGLang's
 * answers.
 *
 * Refused before anything starts, with every reason: no NVIDIA GPU on the
 * host, no Python environment with SGLang, no model folder, a max_model_len
 * over the model's own context — and a role the device map placed on the CPU
 * is refused when it starts.
 */
import type { HostGpus } from '../../processes/devices/hostGpus';
import { EngineError } from '../../core/protocols/engineProtocol';
import { BackendUnavailableError } from '../backendUnavailable';
import type { PolicyBackend, RecipePathResolver } from '../policyBackend';
import { findBackendPython } from '../backendPython';
import { servedContextProblem } from '../httpEngine/servedContext';
import { findModelFolder } from '../httpEngine/engineEnvironment';
import type { HttpEngineSection } from '../httpEngine/httpEngineSection';
import { sglangPython } from './sglangPython';
import { httpEngineBackend } from '../httpEngine/startHttpEngine';
import { SglangEngineClient } from './sglangEngineClient';
import { writeSglangServerConfig } from './sglangServerConfig';
import { sglangServerArgs, sglangServerEnv } from './sglangServerArgs';

export type SglangPolicyOptions = {
  /** What the lab found on this host; undefined = not looked (the server's own start then says whether a GPU is there). */
  host?: HostGpus;
  env?: Readonly<Record<string, string | undefined>>;
  /** How long a server may take to load and answer /health (SGLang compiles kernels at its first start). */
  startTimeoutMs?: number;
};

export function sglangPolicy(policy: HttpEngineSection, resolvePath: RecipePathResolver, options: SglangPolicyOptions = {}): PolicyBackend {
  const { host } = options;
  const environment = findBackendPython(sglangPython, options.env);
  const model = findModelFolder(policy.model, resolvePath, options.env);
  const reasons: string[] = [];
  if (host && host.gpus.length === 0) {
    reasons.push(
      `policy engine 'sglang' (${policy.model}) needs an NVIDIA GPU (SGLang has no CPU build on PyPI); this host has none${host.problem ? ` (${host.problem})` : ''}; policy.kind: vllm runs on a CPU`,
    );
  }
  if ('missing' in environment) reasons.push(`policy engine 'sglang': ${environment.missing}`);
  if ('missing' in model) reasons.push(`policy engine 'sglang': ${model.missing}`);
  const context = 'missing' in model ? null : servedContextProblem(policy.max_model_len, model.modelDir);
  if (context) reasons.push(`policy engine 'sglang': ${context}`);
  if (reasons.length > 0 || 'missing' in environment || 'missing' in model) throw new BackendUnavailableError(reasons);
  const { python } = environment;
  const { modelDir } = model;

  return httpEngineBackend(modelDir, (start) => {
    if (start.placement.gpus.length === 0) {
      throw new EngineError(
        'start_failed',
        `the ${start.role} SGLang server needs a GPU, and the device map placed the ${start.role} role on the CPU (give it a GPU in devices, or use policy.kind: vllm)`,
      );
    }
    return {
      engineName: 'SGLang',
      python,
      maxModelLen: (shape) => Math.min(shape.maxPositions, policy.max_model_len ?? shape.maxPositions),
      command: async ({ port, apiKey, workDir, servedModelDir, maxModelLen }) => {
        const settings = {
          python,
          modelDir: servedModelDir,
          port,
          configPath: await writeSglangServerConfig(workDir, apiKey),
          servedModelName: 'gatelab-base',
          contextLength: maxModelLen,
          maxLoraRank: policy.max_lora_rank,
          tensorParallel: policy.tensor_parallel,
          placementEnv: start.placement.env,
          seed: 0,
          ...(policy.gpu_memory_utilization !== undefined ? { memFractionStatic: policy.gpu_memory_utilization } : {}),
        };
        return { args: sglangServerArgs(settings), env: sglangServerEnv(settings) };
      },
      client: (clientOptions) => new SglangEngineClient(clientOptions),
      startTimeoutMs: options.startTimeoutMs ?? 1_200_000,
    };
  });
}
