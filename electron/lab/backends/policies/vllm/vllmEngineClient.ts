/**
 * The engine protocol (electron/lab/protocols/engineProtocol.ts) over a vLLM
 * OpenAI server's HTTP API: one client per server, one server per role.
 *
 * Versions are adapter names. Every version the server holds is a LoRA
 * loaded at runtime under its version id; base traffic goes to the all-zero
 * adapter named `base` (loraFolders.ts says why). A request runs on the
 * version current when it arrived: it is sent under that name, so the
 * server computes it with that adapter whatever happens meanwhile, and the
 * reply says so. `setAdapter` loads the new version (after re-hashing its
 * bytes) and makes it current at once; the old one is unloaded when its last
 * request has finished — requests in flight finish on the old version,
 * new ones start on the new one, none waits and none is dropped.
 *
 * What the trainer needs comes back with every reply: the response token ids
 * (vLLM's `return_tokens_as_token_ids`, the end-of-turn token included when
 * the reply stopped), their raw log-probs (`--logprobs-mode raw_logprobs`)
 * and the top-K of the same distribution, the prompt ids
 * (`return_token_ids`), the finish reason and the version.
 */
import { rm } from 'node:fs/promises';
import { z } from 'zod';
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
} from '../../../protocols/engineProtocol';
import type { SupervisedServer } from '../../../workers/supervisedServer';
import { stageAdapterFolder, ZERO_ADAPTER_NAME } from './loraFolders';

export type VllmEndpoint = {
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  apiKey: string;
};

const tokenIdLabel = z.string().regex(/^token_id:\d+$/);
const idOf = (label: string): number => Number(tokenIdLabel.parse(label).slice('token_id:'.length));

const chatResponseSchema = z.looseObject({
  model: z.string(),
  prompt_token_ids: z.array(z.int().min(0)).nullable().optional(),
  choices: z
    .array(
      z.looseObject({
        message: z.looseObject({ content: z.string().nullable() }),
        finish_reason: z.string().nullable(),
        token_ids: z.array(z.int().min(0)).nullable().optional(),
        logprobs: z.looseObject({
          content: z.array(
            z.looseObject({
              token: z.string(),
              logprob: z.number(),
              top_logprobs: z.array(z.looseObject({ token: z.string(), logprob: z.number() })),
            }),
          ),
        }),
      }),
    )
    .length(1),
  usage: z.looseObject({ prompt_tokens: z.int().nonnegative(), completion_tokens: z.int().nonnegative() }),
});

const tokenizeResponseSchema = z.looseObject({ count: z.int().nonnegative() });

type Loaded = { name: string; dir: string | null; inFlight: number };

export type VllmEngineClientOptions = {
  server: SupervisedServer;
  endpoint: VllmEndpoint;
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

export class VllmEngineClient implements EngineClient {
  readonly info: EngineInfo;
  /** Versions loaded on the server, by version id. */
  readonly #loaded = new Map<string, Loaded>();
  #current: string = ZERO_ADAPTER_NAME;
  /** The adapter ref of each loaded candidate version, to load it again after a restart. */
  readonly #refs = new Map<string, AdapterRef>();
  #pending = 0;
  #swapQueue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: VllmEngineClientOptions) {
    this.info = options.info;
  }

  /** The server's own endpoint and token (bench:vllm measures the gateway against it). */
  get endpoint(): VllmEndpoint {
    return this.options.endpoint;
  }

  /** The name vLLM serves a version under (the zero adapter's for `base`). */
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
    await this.#loadLora(ZERO_ADAPTER_NAME, this.options.zeroAdapterDir, 'setup');
    const zero = this.#loaded.get(ZERO_ADAPTER_NAME);
    this.#loaded.set(ZERO_ADAPTER_NAME, { name: ZERO_ADAPTER_NAME, dir: this.options.zeroAdapterDir, inFlight: zero?.inFlight ?? 0 });
    const ref = this.#refs.get(this.#current);
    if (ref) {
      const loaded = this.#loaded.get(this.#current);
      await this.#loadLora(ref.version, loaded?.dir ?? (await stageAdapterFolder(ref, this.options.workDir, this.options.modelDir)), 'setup');
    }
  }

  /** `during: 'setup'`: the server's own setup is asking (it is not `ready` until that finishes). */
  async #post(route: string, body: unknown, timeoutMs = 60_000, during: 'traffic' | 'setup' = 'traffic'): Promise<Response> {
    if (during === 'traffic') await this.options.server.ready();
    try {
      return await fetch(`${this.options.endpoint.baseUrl}${route}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${this.options.endpoint.apiKey}` },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message;
      throw new EngineError('engine_error', `${route}: the vLLM server did not answer: ${(error as Error).message}${cause ? ` (${cause})` : ''}`);
    }
  }

  async #failure(route: string, response: Response): Promise<EngineError> {
    const text = await response.text().catch(() => '');
    let message = text.slice(0, 500);
    try {
      const parsed = JSON.parse(text) as { error?: { message?: string }; message?: string };
      message = parsed.error?.message ?? parsed.message ?? message;
    } catch {
      // not JSON: keep the text
    }
    const code = response.status === 400 && /maximum context length|too long|max_model_len/i.test(message) ? 'context_length_exceeded' : response.status === 400 ? 'bad_request' : 'engine_error';
    return new EngineError(code, `${route}: vLLM answered ${response.status}: ${message}`);
  }

  async #loadLora(name: string, dir: string, during: 'traffic' | 'setup' = 'traffic'): Promise<void> {
    let serverDir: string;
    try {
      serverDir = this.options.serverPath ? await this.options.serverPath(dir) : dir;
    } catch (error) {
      throw new EngineError('engine_error', `adapter ${name}: cannot give it to the vLLM server: ${(error as Error).message}`);
    }
    const response = await this.#post('/v1/load_lora_adapter', { lora_name: name, lora_path: serverDir }, 60_000, during);
    if (response.ok) {
      await response.body?.cancel();
      return;
    }
    const error = await this.#failure('/v1/load_lora_adapter', response);
    // A server restarted by its supervisor may already hold it (setup ran twice): that is fine.
    if (/already (been )?loaded/i.test(error.message)) return;
    throw new EngineError('bad_adapter', error.message);
  }

  async #unloadLora(version: string): Promise<void> {
    const loaded = this.#loaded.get(version);
    if (!loaded || loaded.inFlight > 0 || version === this.#current || version === ZERO_ADAPTER_NAME) return;
    this.#loaded.delete(version);
    this.#refs.delete(version);
    const response = await this.#post('/v1/unload_lora_adapter', { lora_name: loaded.name });
    if (!response.ok) throw await this.#failure('/v1/unload_lora_adapter', response);
    await response.body?.cancel();
    if (loaded.dir) await rm(loaded.dir, { recursive: true, force: true });
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
    if (adapter) {
      if (adapter.version === ZERO_ADAPTER_NAME) throw new EngineError('bad_adapter', `'${ZERO_ADAPTER_NAME}' is not an adapter version`);
      if (!this.#loaded.has(adapter.version)) {
        const dir = await stageAdapterFolder(adapter, this.options.workDir, this.options.modelDir);
        await this.#loadLora(adapter.version, dir);
        this.#loaded.set(adapter.version, { name: adapter.version, dir, inFlight: 0 });
        this.#refs.set(adapter.version, adapter);
      }
    }
    // From here on, new requests are sent under the new name.
    this.#current = target;
    // The old version goes once its last request is done (now, if none is in flight).
    await this.#unloadLora(previous).catch(() => undefined);
    return target;
  }

  async generate(request: GenerateRequest, onTokens?: (tokens: GeneratedTokens) => void): Promise<GenerateResult> {
    const version = this.#current;
    const loaded = this.#loaded.get(version);
    if (!loaded) throw new EngineError('not_loaded', `version ${version} is not loaded on the vLLM server`);
    loaded.inFlight += 1;
    this.#pending += 1;
    const started = performance.now();
    try {
      const { sampling } = request;
      const response = await this.#post(
        '/v1/chat/completions',
        {
          model: loaded.name,
          messages: request.messages,
          temperature: sampling.temperature,
          top_p: sampling.topP,
          // vLLM: -1 (or 0) disables top-k.
          top_k: sampling.topK > 0 ? sampling.topK : -1,
          max_tokens: sampling.maxTokens,
          seed: request.seed,
          logprobs: true,
          // vLLM lists the sampled token first, then the best others: one more than K, sorted, gives the true top-K.
          top_logprobs: request.logprobsTopK > 0 ? request.logprobsTopK + 1 : 0,
          return_tokens_as_token_ids: true,
          return_token_ids: true,
          skip_special_tokens: true,
          stream: false,
        },
        this.options.requestTimeoutMs ?? 900_000,
      );
      if (!response.ok) throw await this.#failure('/v1/chat/completions', response);
      const parsed = chatResponseSchema.safeParse(await response.json());
      if (!parsed.success) throw new EngineError('engine_error', `vLLM's chat completion is not what GateLab reads: ${parsed.error.issues[0]?.message ?? ''}`);
      const result = this.#toResult(parsed.data, version, request, performance.now() - started);
      onTokens?.(result);
      return result;
    } finally {
      loaded.inFlight -= 1;
      this.#pending -= 1;
      if (loaded.inFlight === 0 && version !== this.#current) void this.#unloadLora(version).catch(() => undefined);
    }
  }

  #toResult(data: z.infer<typeof chatResponseSchema>, version: string, request: GenerateRequest, elapsedMs: number): GenerateResult {
    const choice = data.choices[0] as z.infer<typeof chatResponseSchema>['choices'][number];
    if (data.model !== this.#loaded.get(version)?.name && data.model !== version) {
      throw new EngineError('engine_error', `vLLM answered as model ${data.model}, the request named ${version}`);
    }
    const finishReason = choice.finish_reason === 'stop' ? 'stop' : choice.finish_reason === 'length' ? 'length' : null;
    if (!finishReason) throw new EngineError('engine_error', `vLLM finished the reply with ${JSON.stringify(choice.finish_reason)}`);
    const content = choice.logprobs.content;
    const tokenIds = content.map((c) => idOf(c.token));
    if (choice.token_ids && choice.token_ids.join(',') !== tokenIds.join(',')) {
      throw new EngineError('engine_error', 'vLLM returned token ids that disagree with its log-probs');
    }
    const k = request.logprobsTopK;
    const best = content.map((c) => {
      const byId = new Map<number, number>();
      for (const t of c.top_logprobs) byId.set(idOf(t.token), t.logprob);
      return [...byId.entries()].sort((a, b) => b[1] - a[1]).slice(0, k);
    });
    const topIds = best.map((entries) => entries.map(([id]) => id));
    const topLogprobs = best.map((entries) => entries.map(([, logprob]) => logprob));
    return {
      tokenIds,
      text: choice.message.content ?? '',
      logprobs: content.map((c) => c.logprob),
      topIds,
      topLogprobs,
      finishReason,
      promptTokens: data.usage.prompt_tokens,
      completionTokens: data.usage.completion_tokens,
      ...(data.prompt_token_ids ? { promptIds: data.prompt_token_ids } : {}),
      version,
      seed: request.seed,
      timings: { promptMs: 0, decodeMs: elapsedMs },
    };
  }

  async countPromptTokens(messages: readonly ChatMessage[]): Promise<number> {
    const response = await this.#post('/tokenize', { model: this.#loaded.get(this.#current)?.name ?? ZERO_ADAPTER_NAME, messages, add_generation_prompt: true });
    if (!response.ok) throw await this.#failure('/tokenize', response);
    return tokenizeResponseSchema.parse(await response.json()).count;
  }

  async health(): Promise<EngineHealth> {
    let ok = false;
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
