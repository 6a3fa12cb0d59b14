/**
 * An engine that runs as a supervised worker process speaking the engine
 * protocol as RPC (src/core/protocols/engineProtocol.ts): the embedded
 * onnxruntime engine, or any program that answers the same JSON lines. The
 * backend chooses the process (its `WorkerEntry`); everything else — load,
 * adapter swaps, restarts — is the same for all of them.
 */
import {
  EngineError,
  engineRpcProtocol,
  type AdapterRef,
  type ChatMessage,
  type EngineClient,
  type EngineHealth,
  type EngineInfo,
  type EngineRpcProtocol,
  type GeneratedTokens,
  type GenerateRequest,
  type GenerateResult,
} from '../core/protocols/engineProtocol';
import { SupervisedWorker, type WorkerState } from './supervisedWorker';
import type { WorkerEntry } from './workerEntry';
import type { WorkerLauncher } from './workerProcess';
import type { WorkerDescriptor } from './workerRegistry';
import { WorkerCallError } from './workerMessages';

export type RpcEngineOptions = {
  /** The supervisor's name for the process (e.g. `serving engine`), in logs and errors. */
  name: string;
  /** The role and GPUs the workers panel lists it under. */
  describe?: WorkerDescriptor;
  /** How to start the engine's process (called at every start). */
  entry: () => WorkerEntry;
  /** What `load` is given: the model folder. */
  modelDir: string;
  /** Extra environment (the role's CUDA_VISIBLE_DEVICES, GATELAB_ORT_THREADS, …). */
  env?: Readonly<Record<string, string>>;
  /** The process's nice value (the recipe's device map); 0 = normal priority. */
  nice?: number;
  /** How long a start (and the model's load) may take. */
  startTimeoutMs?: number;
  /** Starts its process elsewhere (the placement's runner: a Ray job); default: on this host. */
  launch?: WorkerLauncher;
  onLog?: (line: string, stream: 'stdout' | 'stderr') => void;
  onStateChange?: (state: WorkerState, detail?: string) => void;
};

const asEngineError = (error: unknown): unknown => (error instanceof WorkerCallError ? new EngineError(error.code, error.message) : error);

/**
 * The engine worker, supervised. After a crash the supervisor restarts it and
 * `setup` loads the model and the adapter that was serving — never another
 * one — before any call reaches it.
 */
class RpcEngineClient implements EngineClient {
  /** The adapter last loaded successfully: what a restarted worker must load again. */
  #adapter: AdapterRef | null = null;
  #info: EngineInfo | undefined;
  readonly worker: SupervisedWorker<EngineRpcProtocol>;

  constructor(options: RpcEngineOptions) {
    this.worker = new SupervisedWorker({
      name: options.name,
      protocol: engineRpcProtocol,
      entry: options.entry,
      ...(options.env ? { env: options.env } : {}),
      ...(options.nice ? { nice: options.nice } : {}),
      ...(options.describe ? { describe: options.describe } : {}),
      ...(options.launch ? { launch: options.launch } : {}),
      ...(options.onLog ? { onLog: options.onLog } : {}),
      ...(options.onStateChange ? { onStateChange: options.onStateChange } : {}),
      startTimeoutMs: options.startTimeoutMs ?? 60_000,
      setup: async (connection) => {
        const info = await connection.call('load', { modelDir: options.modelDir });
        if (this.#info && info.baseSha256 !== this.#info.baseSha256) {
          throw new Error(`the restarted engine loaded base ${info.baseSha256.slice(0, 12)}…, not ${this.#info.baseSha256.slice(0, 12)}…`);
        }
        this.#info = info;
        if (this.#adapter) await connection.call('setAdapter', this.#adapter);
      },
    });
  }

  get info(): EngineInfo {
    if (!this.#info) throw new EngineError('not_loaded', 'the engine has not loaded its model yet');
    return this.#info;
  }

  async generate(request: GenerateRequest, onTokens?: (tokens: GeneratedTokens) => void): Promise<GenerateResult> {
    try {
      return await this.worker.call('generate', { ...request, stream: onTokens !== undefined }, onTokens ? { onProgress: onTokens } : {});
    } catch (error) {
      throw asEngineError(error);
    }
  }

  async setAdapter(adapter: AdapterRef | null): Promise<string> {
    try {
      const { version } = await this.worker.call('setAdapter', adapter);
      this.#adapter = adapter;
      return version;
    } catch (error) {
      throw asEngineError(error);
    }
  }

  async countPromptTokens(messages: readonly ChatMessage[]): Promise<number> {
    try {
      return (await this.worker.call('countPromptTokens', { messages: [...messages] })).tokens;
    } catch (error) {
      throw asEngineError(error);
    }
  }

  async health(): Promise<EngineHealth> {
    try {
      return await this.worker.call('health', {});
    } catch (error) {
      throw asEngineError(error);
    }
  }

  close(): Promise<void> {
    return this.worker.shutdown();
  }
}

/** A started engine: its client, and its process id now (it changes after a restart). */
export type StartedEngine = {
  client: EngineClient;
  info: EngineInfo;
  pid(): number | undefined;
};

/** Starts an engine worker on a model folder; resolves once the model is loaded. */
export async function startRpcEngine(options: RpcEngineOptions): Promise<StartedEngine> {
  const client = new RpcEngineClient(options);
  try {
    await client.worker.start();
  } catch (error) {
    await client.close();
    throw asEngineError(error);
  }
  return { client, info: client.info, pid: () => client.worker.pid };
}
