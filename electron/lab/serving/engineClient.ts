/**
 * The lab side of the engine protocol (docs/internals.md, "The engine
 * worker"; schemas in electron/workers/embedded/engineProtocol.ts): what the
 * gateway and the serving state need from an engine, and its implementation
 * over the supervised engine worker. Unit tests use a test double of
 * `EngineClient`; integration tests and the bench use the real worker.
 */
import type { EngineChatMessage } from './chatCompletionRequest';
import type {
  AdapterRef as ProtocolAdapterRef,
  GenerateResult as ProtocolGenerateResult,
  GeneratedTokens as ProtocolGeneratedTokens,
  LoadResult,
} from '../../workers/embedded/engineProtocol';
import { engineProtocol, type EngineProtocol } from '../../workers/embedded/engineProtocol';
import { SupervisedWorker, type WorkerState } from '../workers/supervisedWorker';
import { workerEntry } from '../workers/workerEntry';
import type { WorkerDescriptor } from '../workers/workerRegistry';
import { WorkerCallError } from '../workers/workerMessages';

/** A promoted adapter as the pointer names it; `path` is its content-addressed blob. */
export type AdapterRef = ProtocolAdapterRef;
export type GeneratedTokens = ProtocolGeneratedTokens;
export type GenerateResult = ProtocolGenerateResult;
export type EngineInfo = LoadResult;

export type SamplingParams = { temperature: number; topP: number; topK: number; maxTokens: number };

export type GenerateRequest = {
  messages: EngineChatMessage[];
  sampling: SamplingParams;
  seed: number;
  logprobsTopK: number;
  hint?: string;
};

export interface EngineClient {
  /** `onTokens` is called with new tokens as they are decoded (the engine streams them). */
  generate(request: GenerateRequest, onTokens?: (tokens: GeneratedTokens) => void): Promise<GenerateResult>;
  /** Loads and hash-checks an adapter (null = the base model); resolves with the version now loaded. */
  setAdapter(adapter: AdapterRef | null): Promise<string>;
  close(): Promise<void>;
}

/** An error the engine (or its supervisor) answered with; `code` is the protocol's. */
export class EngineError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

const asEngineError = (error: unknown): unknown =>
  error instanceof WorkerCallError ? new EngineError(error.code, error.message) : error;

export type EmbeddedEngineOptions = {
  modelDir: string;
  /** Extra environment for the worker (e.g. GATELAB_ORT_THREADS). */
  env?: Readonly<Record<string, string>>;
  /** The worker's nice value (the recipe's device map); 0 = normal priority. */
  nice?: number;
  /** Its role (serving, probe) and GPUs, for the workers panel. */
  describe?: WorkerDescriptor;
  onLog?: (line: string, stream: 'stdout' | 'stderr') => void;
  onStateChange?: (state: WorkerState, detail?: string) => void;
};

/**
 * The engine worker, supervised. After a crash the supervisor restarts it and
 * `setup` loads the model and the adapter that was serving — never another
 * one — before any call reaches it.
 */
class WorkerEngineClient implements EngineClient {
  /** The adapter last loaded successfully: what a restarted worker must load again. */
  #adapter: AdapterRef | null = null;
  readonly worker: SupervisedWorker<EngineProtocol>;

  constructor(
    options: EmbeddedEngineOptions,
    private readonly onInfo: (info: EngineInfo) => void,
  ) {
    this.worker = new SupervisedWorker({
      name: 'engine',
      protocol: engineProtocol,
      entry: () => workerEntry('engine'),
      ...(options.env ? { env: options.env } : {}),
      ...(options.nice ? { nice: options.nice } : {}),
      ...(options.describe ? { describe: options.describe } : {}),
      ...(options.onLog ? { onLog: options.onLog } : {}),
      ...(options.onStateChange ? { onStateChange: options.onStateChange } : {}),
      startTimeoutMs: 60_000,
      setup: async (connection) => {
        this.onInfo(await connection.call('load', { modelDir: options.modelDir }));
        if (this.#adapter) await connection.call('setAdapter', this.#adapter);
      },
    });
  }

  async generate(request: GenerateRequest, onTokens?: (tokens: GeneratedTokens) => void): Promise<GenerateResult> {
    try {
      return await this.worker.call(
        'generate',
        { ...request, stream: onTokens !== undefined },
        onTokens ? { onProgress: onTokens } : {},
      );
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

  close(): Promise<void> {
    return this.worker.shutdown();
  }
}

export type EmbeddedEngine = {
  client: EngineClient;
  info: EngineInfo;
  /** The worker's process id now (it changes after a restart). */
  pid(): number | undefined;
};

/** Starts the engine worker on a model folder; resolves once the model is loaded. */
export async function startEmbeddedEngine(options: EmbeddedEngineOptions): Promise<EmbeddedEngine> {
  let info: EngineInfo | null = null;
  const client = new WorkerEngineClient(options, (loaded) => {
    info = loaded;
  });
  try {
    await client.worker.start();
  } catch (error) {
    await client.close();
    throw asEngineError(error);
  }
  if (!info) throw new Error('engine worker started without loading the model');
  return { client, info, pid: () => client.worker.pid };
}
