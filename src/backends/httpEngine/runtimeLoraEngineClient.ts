/**
 * What every HTTP engine client (vLLM, SGLang) does the same way: the
 * engine protocol's versions as LoRA adapters loaded at runtime into one
 * supervised server, the server's endpoint and token, its health, its end.
 * Both servers load a PEFT folder with `{lora_name, lora_path}` and unload
 * with `{lora_name}`, on routes of their own (RuntimeLoraRoutes). A subclass
 * says those routes and how one request is asked and read
 * (vllm/vllmEngineClient.ts, sglang/sglangEngineClient.ts).
 *
 * Versions are adapter names. Every version the server holds is a LoRA
 * loaded at runtime under its version id; base traffic goes to the all-zero
 * adapter named `base` (loraFolders.ts says why). A request runs on the
 * version current when it arrived: it is sent under that name, so the
 * server computes it with that adapter whatever happens meanwhile, and the
 * reply says so. `setAdapter` loads the new version (after re-hashing its
 * bytes) and makes it current at once — requests in flight finish on the old
 * version, new ones start on the new one, none waits and none is dropped.
 * The version current before stays loaded too (the server's `--max-loras 3`
 * holds the zero adapter, it and the current one): a probe's rounds swap
 * between the candidate and serving's version, and a rollback goes to the
 * previous version, with no load. The one it replaces as the previous is
 * unloaded when its last request has finished.
 */
import { rm } from 'node:fs/promises';
import type { z } from 'zod';
import {
  EngineError,
  type AdapterRef,
  type ChatMessage,
  type EngineClient,
  type EngineHealth,
  type EngineInfo,
  type GeneratedTokens,
  type GenerateRequest,
  type GenerateResult,
} from '../../core/protocols/engineProtocol';
import type { SupervisedServer } from '../../processes/supervisedServer';
import { stageAdapterFolder, ZERO_ADAPTER_NAME } from './loraFolders';

export type EngineEndpoint = {
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  apiKey: string;
};

export type RuntimeLoraEngineOptions = {
  server: SupervisedServer;
  endpoint: EngineEndpoint;
  info: EngineInfo;
  /** Where adapter folders are staged (the engine's private work directory). */
  workDir: string;
  modelDir: string;
  /** The zero adapter's folder (base traffic). */
  zeroAdapterDir: string;
  /** Per request (generation on a loaded CPU is slow). */
  requestTimeoutMs?: number;
  /**
   * Where the server reads a folder staged in `workDir`: itself for a server
   * on this host; for one on another node, the folder uploaded there by
   * content (remoteServerHost.ts), its path on that node.
   */
  serverPath?: (localDir: string) => Promise<string>;
  /** After the server stopped: release what reaches it (a remote server's tunnel). */
  afterClose?: () => Promise<void>;
};

/** `setup`: the server's own setup is asking (it is not `ready` until that finishes); `traffic`: anything else. */
export type RequestPhase = 'traffic' | 'setup';

type Loaded = { name: string; dir: string | null; inFlight: number };

/** What differs between the engines' adapter routes. */
export type RuntimeLoraRoutes = {
  /** In errors: `vLLM`, `SGLang`. */
  engineName: string;
  loadRoute: string;
  unloadRoute: string;
  /** The load error that means the server already holds the name (a restarted server's setup may run twice): not an error. */
  alreadyLoaded: RegExp;
};

/** The message in an engine's error body: OpenAI's `{error: {message}}`, `{message}`, SGLang's `{error_message}`; else the text. */
export function engineErrorMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown; error_message?: unknown; detail?: unknown };
    const candidates = [typeof parsed.error === 'object' ? parsed.error?.message : parsed.error, parsed.message, parsed.error_message, parsed.detail];
    const found = candidates.find((c): c is string => typeof c === 'string' && c.length > 0);
    if (found) return found;
  } catch {
    // not JSON: keep the text
  }
  return text.slice(0, 500);
}

/** The rejection of a request its caller stopped (EngineClient.generate's `stop`). */
export const stoppedError = (route: string): EngineError => new EngineError('stopped', `${route}: stopped by the caller`);

export abstract class RuntimeLoraEngineClient implements EngineClient {
  readonly info: EngineInfo;
  /** Versions loaded on the server, by version id. */
  readonly #loaded = new Map<string, Loaded>();
  #current: string = ZERO_ADAPTER_NAME;
  /** The version current before the last swap: kept loaded for a swap back. */
  #previous: string | null = null;
  /** The adapter ref of each loaded candidate version, to load it again after a restart. */
  readonly #refs = new Map<string, AdapterRef>();
  #pending = 0;
  #swapQueue: Promise<unknown> = Promise.resolve();

  protected readonly engineName: string;

  constructor(
    protected readonly options: RuntimeLoraEngineOptions,
    private readonly routes: RuntimeLoraRoutes,
  ) {
    this.info = options.info;
    this.engineName = routes.engineName;
  }

  /** One generation on the adapter the server knows as `servedName`, which is `version`. */
  protected abstract generateOn(servedName: string, version: string, request: GenerateRequest): Promise<GenerateResult>;
  /**
   * A generation the caller may stop (EngineClient.generate): a server that streams
   * overrides this to stop decoding when `stop` aborts; this one cannot, so it
   * finishes the reply and hands it over whole.
   */
  protected async generateStoppable(
    servedName: string,
    version: string,
    request: GenerateRequest,
    _stop: AbortSignal,
    onTokens?: (tokens: GeneratedTokens) => void,
  ): Promise<GenerateResult> {
    const result = await this.generateOn(servedName, version, request);
    onTokens?.(result);
    return result;
  }
  abstract countPromptTokens(messages: readonly ChatMessage[]): Promise<number>;

  /** The server's own endpoint and token (bench:vllm measures the gateway against it). */
  get endpoint(): EngineEndpoint {
    return this.options.endpoint;
  }

  /** The name the server serves a version under (the zero adapter's for `base`). */
  servedName(version: string): string | undefined {
    return this.#loaded.get(version)?.name;
  }

  /** The version requests arriving now run on. */
  get currentVersion(): string {
    return this.#current;
  }

  /** Loads the zero adapter and the current version: after every (re)start of the server, before other traffic. */
  async restoreAdapters(): Promise<void> {
    // A new process holds no adapter: forget every version but the current one (their requests failed with the old process).
    for (const version of [...this.#loaded.keys()]) {
      if (version !== this.#current && version !== ZERO_ADAPTER_NAME) {
        this.#loaded.delete(version);
        this.#refs.delete(version);
      }
    }
    this.#previous = null;
    await this.#loadAdapter(ZERO_ADAPTER_NAME, this.options.zeroAdapterDir, 'setup');
    const zero = this.#loaded.get(ZERO_ADAPTER_NAME);
    this.#loaded.set(ZERO_ADAPTER_NAME, { name: ZERO_ADAPTER_NAME, dir: this.options.zeroAdapterDir, inFlight: zero?.inFlight ?? 0 });
    const ref = this.#refs.get(this.#current);
    if (ref) {
      const loaded = this.#loaded.get(this.#current);
      await this.#loadAdapter(ref.version, loaded?.dir ?? (await stageAdapterFolder(ref, this.options.workDir, this.options.modelDir)), 'setup');
    }
  }

  /**
   * POST with the per-launch token; a connection that fails becomes an EngineError naming
   * the route, and `stop` aborting ends the request (and its answer's body) with `stopped`.
   */
  protected async post(route: string, body: unknown, timeoutMs = 60_000, during: RequestPhase = 'traffic', stop?: AbortSignal): Promise<Response> {
    if (during === 'traffic') await this.options.server.ready();
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      return await fetch(`${this.options.endpoint.baseUrl}${route}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${this.options.endpoint.apiKey}` },
        body: JSON.stringify(body),
        signal: stop ? AbortSignal.any([timeout, stop]) : timeout,
      });
    } catch (error) {
      if (stop?.aborted) throw stoppedError(route);
      const cause = (error as { cause?: { message?: string } }).cause?.message;
      throw new EngineError('engine_error', `${route}: the ${this.engineName} server did not answer: ${(error as Error).message}${cause ? ` (${cause})` : ''}`);
    }
  }

  /** POSTs and reads the answer with `schema`: an error status or an answer of another shape is an EngineError. */
  protected async postParsed<S extends z.ZodType>(route: string, body: unknown, schema: S, timeoutMs?: number): Promise<z.infer<S>> {
    const response = await this.post(route, body, timeoutMs);
    if (!response.ok) throw await this.failure(route, response);
    const parsed = schema.safeParse(await response.json());
    if (!parsed.success)
      throw new EngineError('engine_error', `${this.engineName}'s ${route} answer is not what GateLab reads: ${parsed.error.issues[0]?.message ?? ''}`);
    return parsed.data;
  }

  /** The EngineError for a response that is not 2xx: a prompt too long for the context is `context_length_exceeded`. */
  protected async failure(route: string, response: Response): Promise<EngineError> {
    const message = engineErrorMessage(await response.text().catch(() => ''));
    const tooLong = /maximum context length|too long|max_model_len|longer than the model's context length/i.test(message);
    const code = response.status === 400 && tooLong ? 'context_length_exceeded' : response.status === 400 ? 'bad_request' : 'engine_error';
    return new EngineError(code, `${route}: ${this.engineName} answered ${response.status}: ${message}`);
  }

  /** Loads the PEFT folder `dir` under `name`. */
  async #loadAdapter(name: string, dir: string, during: RequestPhase): Promise<void> {
    const { loadRoute, alreadyLoaded } = this.routes;
    let serverDir: string;
    try {
      serverDir = this.options.serverPath ? await this.options.serverPath(dir) : dir;
    } catch (error) {
      throw new EngineError('engine_error', `adapter ${name}: cannot give it to the ${this.engineName} server: ${(error as Error).message}`);
    }
    const response = await this.post(loadRoute, { lora_name: name, lora_path: serverDir }, 120_000, during);
    if (response.ok) {
      await response.body?.cancel();
      return;
    }
    const error = await this.failure(loadRoute, response);
    if (alreadyLoaded.test(error.message)) return;
    throw new EngineError('bad_adapter', error.message);
  }

  async #unloadAdapter(name: string): Promise<void> {
    const { unloadRoute } = this.routes;
    const response = await this.post(unloadRoute, { lora_name: name });
    if (!response.ok) throw await this.failure(unloadRoute, response);
    await response.body?.cancel();
  }

  /** Versions that stay loaded whatever their traffic: the zero adapter, the current version and the previous one. */
  #kept(version: string): boolean {
    return version === ZERO_ADAPTER_NAME || version === this.#current || version === this.#previous;
  }

  async #unload(version: string): Promise<void> {
    const loaded = this.#loaded.get(version);
    if (!loaded || loaded.inFlight > 0 || this.#kept(version)) return;
    this.#loaded.delete(version);
    this.#refs.delete(version);
    await this.#unloadAdapter(loaded.name);
    if (loaded.dir) await rm(loaded.dir, { recursive: true, force: true });
  }

  /**
   * Unloads a version once its last request is done, in turn with the swaps: a
   * swap back to it then stages its folder after the unload has removed the
   * old one, never while the removal runs.
   */
  #unloadInTurn(version: string): void {
    this.#swapQueue = this.#swapQueue.then(() => this.#unload(version)).catch(() => undefined);
  }

  setAdapter(adapter: AdapterRef | null): Promise<string> {
    const swap = this.#swapQueue.then(() => this.#setAdapter(adapter));
    this.#swapQueue = swap.catch(() => undefined);
    return swap;
  }

  async #setAdapter(adapter: AdapterRef | null): Promise<string> {
    const previous = this.#current;
    const target = adapter?.version ?? ZERO_ADAPTER_NAME;
    if (target === previous) return target;
    if (adapter?.version === ZERO_ADAPTER_NAME) throw new EngineError('bad_adapter', `'${ZERO_ADAPTER_NAME}' is not an adapter version`);
    // The version kept as the previous one until now gives its place to `previous`; it
    // goes first (now, if none of its requests is in flight), so the server never holds
    // more adapters than its slots while `target` loads.
    const replaced = this.#previous;
    this.#previous = previous;
    if (replaced !== null && replaced !== target) await this.#unload(replaced).catch(() => undefined);
    if (adapter && !this.#loaded.has(adapter.version)) {
      try {
        const dir = await stageAdapterFolder(adapter, this.options.workDir, this.options.modelDir);
        await this.#loadAdapter(adapter.version, dir, 'traffic');
        this.#loaded.set(adapter.version, { name: adapter.version, dir, inFlight: 0 });
        this.#refs.set(adapter.version, adapter);
      } catch (error) {
        // No swap: the current version stays, and so does the previous one if it is still loaded.
        this.#previous = replaced !== null && this.#loaded.has(replaced) ? replaced : null;
        throw error;
      }
    }
    // From here on, new requests are sent under the new name.
    this.#current = target;
    return target;
  }

  generate(request: GenerateRequest, onTokens?: (tokens: GeneratedTokens) => void, stop?: AbortSignal): Promise<GenerateResult> {
    if (stop === undefined) return this.generateOnCurrent((servedName, version) => this.generateOn(servedName, version, request), onTokens);
    return this.generateOnCurrent((servedName, version) => this.generateStoppable(servedName, version, request, stop, onTokens));
  }

  /**
   * Runs one generation on the version current now, under its served name,
   * holding that version loaded until it is done (a subclass's other kinds
   * of generation go through here too).
   */
  protected async generateOnCurrent(
    generateOn: (servedName: string, version: string) => Promise<GenerateResult>,
    onTokens?: (tokens: GeneratedTokens) => void,
  ): Promise<GenerateResult> {
    const version = this.#current;
    const loaded = this.#loaded.get(version);
    if (!loaded) throw new EngineError('not_loaded', `version ${version} is not loaded on the ${this.engineName} server`);
    loaded.inFlight += 1;
    this.#pending += 1;
    try {
      const result = await generateOn(loaded.name, version);
      onTokens?.(result);
      return result;
    } finally {
      loaded.inFlight -= 1;
      this.#pending -= 1;
      if (loaded.inFlight === 0 && !this.#kept(version)) this.#unloadInTurn(version);
    }
  }

  async health(): Promise<EngineHealth> {
    let ok: boolean;
    try {
      await this.options.server.ready();
      const response = await fetch(`${this.options.endpoint.baseUrl}/health`, { signal: AbortSignal.timeout(10_000) });
      await response.body?.cancel();
      ok = response.ok;
    } catch {
      ok = false;
    }
    return { ok, version: this.#current, pending: this.#pending };
  }

  /** Stops the server, then removes the engine's private folder (staged adapters, the zero adapter, the model view). */
  async close(): Promise<void> {
    try {
      await this.options.server.shutdown();
    } finally {
      await this.options.afterClose?.();
    }
    await rm(this.options.workDir, { recursive: true, force: true });
  }
}
