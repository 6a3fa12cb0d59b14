/**
 * The engine protocol (src/core/protocols/engineProtocol.ts) over an
 * SGLang server's HTTP API: one client per server, one server per role.
 * Versions, swaps, health and the end of the server are the shared
 * RuntimeLoraEngineClient's (httpEngine/runtimeLoraEngineClient.ts); here is
 * only what is SGLang's: its adapter routes (`/load_lora_adapter`,
 * `/unload_lora_adapter`) and how one reply is asked and read.
 *
 * Why SGLang's native `/generate` and not its OpenAI chat route: `/generate`
 * names every token by id — the sampled ones (`output_ids`, the end-of-turn
 * token included when the reply stopped on it) and each position's top-K
 * (`output_top_logprobs` as [log-prob, id, text] triples) — where the chat
 * route's top log-probs are token *strings*, which do not map back to ids
 * one to one. `/generate` takes token ids, so the prompt is first rendered
 * by the server's own chat template (`/v1/tokenize` with the messages, as
 * for a chat completion); those ids are the reply's `promptIds`, exactly
 * what the engine computed on. The log-probs are raw (before temperature,
 * top-k, top-p) because the server runs with SGLANG_RETURN_ORIGINAL_LOGPROB
 * (sglangServerArgs.ts). Each request names its version's adapter in
 * `lora_path` (SGLang resolves a loaded adapter's name there).
 */
import { z } from 'zod';
import { EngineError, type ChatMessage, type GenerateRequest, type GenerateResult } from '../../core/protocols/engineProtocol';
import { RuntimeLoraEngineClient, type RuntimeLoraEngineOptions } from '../httpEngine/runtimeLoraEngineClient';

/** `/v1/tokenize` with messages (SGLang ≥ 0.5.23). */
export const sglangTokenizeResponseSchema = z.looseObject({ tokens: z.array(z.int().min(0)), count: z.int().nonnegative() });

/** One [log-prob, token id, text or null] triple of SGLang's logprob lists. */
const logprobTriple = z.tuple([z.number(), z.int().min(0), z.string().nullable()]);

/** The fields of `/generate`'s answer GateLab reads (one prompt, not streamed). */
export const sglangGenerateResponseSchema = z.looseObject({
  text: z.string(),
  output_ids: z.array(z.int().min(0)),
  meta_info: z.looseObject({
    finish_reason: z.union([
      z.looseObject({ type: z.string(), matched: z.union([z.int(), z.string(), z.null()]).optional(), message: z.string().optional() }),
      z.null(),
    ]),
    prompt_tokens: z.int().nonnegative(),
    completion_tokens: z.int().nonnegative(),
    output_token_logprobs: z.array(logprobTriple),
    /** One list per position (null where SGLang computed none). */
    output_top_logprobs: z.array(z.array(logprobTriple).nullable()).optional(),
  }),
});
export type SglangGenerateResponse = z.infer<typeof sglangGenerateResponseSchema>;

/**
 * Reads `/generate`'s answer into the engine protocol's result, refusing
 * anything that does not add up (ids and log-probs of different tokens, a
 * top-K list missing, a reply SGLang aborted): a trainer must never get a
 * partial or misaligned sample.
 */
export function sglangResult(
  data: SglangGenerateResponse,
  promptIds: readonly number[],
  version: string,
  request: GenerateRequest,
  elapsedMs: number,
): GenerateResult {
  const meta = data.meta_info;
  const finish = meta.finish_reason;
  const finishReason = finish?.type === 'stop' ? 'stop' : finish?.type === 'length' ? 'length' : null;
  if (!finishReason) {
    throw new EngineError('engine_error', `SGLang finished the reply with ${JSON.stringify(finish)}${finish?.message ? `: ${finish.message}` : ''}`);
  }
  const tokenIds = meta.output_token_logprobs.map(([, id]) => id);
  if (data.output_ids.join(',') !== tokenIds.join(',')) throw new EngineError('engine_error', 'SGLang returned output ids that disagree with its log-probs');
  if (meta.completion_tokens !== tokenIds.length) {
    throw new EngineError('engine_error', `SGLang counted ${meta.completion_tokens} completion tokens but returned ${tokenIds.length}`);
  }
  if (meta.prompt_tokens !== promptIds.length) {
    throw new EngineError('engine_error', `SGLang counted ${meta.prompt_tokens} prompt tokens; GateLab sent ${promptIds.length}`);
  }
  // A reply that stopped on a token ends with it (SGLang's output ids run through the stop position).
  if (finishReason === 'stop' && typeof finish?.matched === 'number' && tokenIds.at(-1) !== finish.matched) {
    throw new EngineError('engine_error', `SGLang stopped on token ${finish.matched}, but the reply's last token is ${String(tokenIds.at(-1))}`);
  }
  const k = request.logprobsTopK;
  const top = meta.output_top_logprobs ?? [];
  if (k > 0 && top.length !== tokenIds.length)
    throw new EngineError('engine_error', `SGLang returned top log-probs for ${top.length} of ${tokenIds.length} positions`);
  const best = tokenIds.map((_, t) => {
    if (k === 0) return [];
    const row = top[t];
    if (!row || row.length < k) throw new EngineError('engine_error', `SGLang returned ${row?.length ?? 0} top log-probs at position ${t}, not ${k}`);
    return [...row].sort((a, b) => b[0] - a[0]).slice(0, k);
  });
  return {
    tokenIds,
    text: data.text,
    logprobs: meta.output_token_logprobs.map(([logprob]) => logprob),
    topIds: best.map((row) => row.map(([, id]) => id)),
    topLogprobs: best.map((row) => row.map(([logprob]) => logprob)),
    finishReason,
    promptTokens: meta.prompt_tokens,
    completionTokens: meta.completion_tokens,
    promptIds: [...promptIds],
    version,
    seed: request.seed,
    timings: { promptMs: 0, decodeMs: elapsedMs },
  };
}

/** SGLang's sampling fields for a request (every one explicit: the server runs with `--sampling-defaults openai`). */
export function sglangSamplingParams(request: GenerateRequest): Record<string, unknown> {
  const { sampling } = request;
  return {
    temperature: sampling.temperature,
    top_p: sampling.topP,
    // SGLang: -1 disables top-k (0 is refused).
    top_k: sampling.topK > 0 ? sampling.topK : -1,
    max_new_tokens: sampling.maxTokens,
    // Honoured because the server runs with --enable-deterministic-inference.
    sampling_seed: request.seed,
    skip_special_tokens: true,
  };
}

export type SglangEngineClientOptions = RuntimeLoraEngineOptions;

export class SglangEngineClient extends RuntimeLoraEngineClient {
  constructor(options: SglangEngineClientOptions) {
    super(options, {
      engineName: 'SGLang',
      loadRoute: '/load_lora_adapter',
      unloadRoute: '/unload_lora_adapter',
      alreadyLoaded: /already (been )?loaded|already exists/i,
    });
  }

  /** The prompt's token ids under the server's chat template, generation prompt included. */
  async promptIds(messages: readonly ChatMessage[]): Promise<number[]> {
    return (await this.postParsed('/v1/tokenize', { messages }, sglangTokenizeResponseSchema)).tokens;
  }

  protected async generateOn(servedName: string, version: string, request: GenerateRequest): Promise<GenerateResult> {
    const started = performance.now();
    const promptIds = await this.promptIds(request.messages);
    const k = request.logprobsTopK;
    const data = await this.postParsed(
      '/generate',
      {
        input_ids: promptIds,
        sampling_params: sglangSamplingParams(request),
        return_logprob: true,
        // -1: log-probs of the reply's tokens only.
        logprob_start_len: -1,
        top_logprobs_num: k,
        lora_path: servedName,
        stream: false,
      },
      sglangGenerateResponseSchema,
      this.options.requestTimeoutMs ?? 900_000,
    );
    return sglangResult(data, promptIds, version, request, performance.now() - started);
  }

  async countPromptTokens(messages: readonly ChatMessage[]): Promise<number> {
    return (await this.promptIds(messages)).length;
  }
}
