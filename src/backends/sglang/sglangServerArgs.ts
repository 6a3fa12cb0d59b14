/**
 * How an SGLang server is started for one engine role: the argument array,
 * the environment and the private config file (no shell ever sees them). One
 * process per role — serving and probe are separate servers, so a candidate
 * never touches the serving engine. The flags are SGLang 0.5.23's
 * (`python -m sglang.launch_server --help`; read from its server_args).
 *
 * Choices, and why:
 * - `SGLANG_RETURN_ORIGINAL_LOGPROB=1`: SGLang's log-probs (and its top
 *   log-probs) are otherwise log_softmax(logits / temperature); with it they
 *   are log_softmax of the model's own logits, before temperature, top-k and
 *   top-p (the engine protocol's convention; the trainer's ratio and OPD need
 *   them). It is a server-wide setting, read when SGLang's sampler is
 *   imported; no request field does it.
 * - `--enable-deterministic-inference`: SGLang uses a request's
 *   `sampling_seed` only in this mode (otherwise every request draws from
 *   the server's one generator), and the gate's paired comparison samples the
 *   candidate and serving on the same seeds.
 * - `--sampling-defaults openai`: every sampling field comes from the
 *   request, none silently from the model's generation_config.json.
 * - `--enable-lora` with the adapter targets named (GateLab's q,k,v,o,gate,
 *   up,down) and runtime loading over HTTP; room for the base's zero adapter,
 *   the serving version and the next one in a batch (`--max-loras-per-batch
 *   3`), and one more held while its last request finishes
 *   (`--max-loaded-loras 4`).
 * - The per-launch token is SGLang's `api_key`, given in a YAML file only this
 *   user can read (`--config`, sglangServerConfig.ts), not as `--api-key`,
 *   which `ps` would show. SGLang answers /health without it (its health
 *   routes are open by design); every other route needs it. The server binds
 *   127.0.0.1 only.
 */
import { LORA_MODULES } from '../../core/weights/policyConfig';
import { loopbackFlags } from '../httpEngine/loopbackFlags';

export type SglangServerSettings = {
  python: string;
  modelDir: string;
  port: number | string;
  /** The YAML file holding `api_key` (sglangServerConfig.ts). */
  configPath: string;
  /** The name the base model is served under (never used for traffic: base goes to the zero adapter). */
  servedModelName: string;
  contextLength: number;
  maxLoraRank: number;
  tensorParallel: number;
  /** The role's placement environment (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER). */
  placementEnv: Readonly<Record<string, string>>;
  seed: number;
  /** SGLang's --mem-fraction-static (the recipe's gpu_memory_utilization): roles sharing a GPU need it lower. */
  memFractionStatic?: number;
};

/** The adapter targets SGLang is told to reserve room for: every module GateLab's LoRA may adapt. */
export const SGLANG_LORA_TARGETS = LORA_MODULES.map((m) => `${m}_proj`);

export function sglangServerArgs(s: SglangServerSettings): string[] {
  return [
    '-m',
    'sglang.launch_server',
    '--model-path',
    s.modelDir,
    '--served-model-name',
    s.servedModelName,
    ...loopbackFlags(s.port),
    '--config',
    s.configPath,
    '--dtype',
    'auto',
    '--context-length',
    String(s.contextLength),
    '--tp-size',
    String(s.tensorParallel),
    '--enable-lora',
    '--max-lora-rank',
    String(s.maxLoraRank),
    '--lora-target-modules',
    ...SGLANG_LORA_TARGETS,
    '--max-loras-per-batch',
    '3',
    '--max-loaded-loras',
    '4',
    '--sampling-defaults',
    'openai',
    '--enable-deterministic-inference',
    '--random-seed',
    String(s.seed),
    ...(s.memFractionStatic !== undefined ? ['--mem-fraction-static', String(s.memFractionStatic)] : []),
  ];
}

export function sglangServerEnv(s: SglangServerSettings): Record<string, string> {
  return {
    ...s.placementEnv,
    SGLANG_RETURN_ORIGINAL_LOGPROB: '1',
    // The lab asks for nothing from the network: the model is a local folder.
    HF_HUB_OFFLINE: '1',
    DO_NOT_TRACK: '1',
  };
}
