/**
 * The engine protocol (src/core/protocols/engineProtocol.ts) over a vLLM
 * OpenAI server's HTTP API: one client per server, one server per role.
 * Versions, swaps, health and the end of the server are the shared
 * RuntimeLoraEngineClient's (httpEngine/runtimeLoraEngineClient.ts); here is
 * only what is vLLM's: its adapter routes and its chat completion.
 *
 * What the trainer needs comes back with every reply: the response token ids
 * (vLLM's `return_tokens_as_token_ids`, the end-of-turn token included when
 * the reply stopped), their raw log-probs (`--logprobs-mode raw_logprobs`)
 * and the top-K of the same distribution, the prompt ids
 * (`return_token_ids`), the finish reason and the version.
 *
 * Tools (`toolCalling`): the server is started with vLLM's tool-call parsing
 * (vllmServerArgs.ts), so an agent's tools, tool_choice and tool turns go to
 * vLLM in OpenAI's form, the model's chat template renders them, and the
 * calls come back parsed. The reply's tokens stay every token the model
 * emitted, the call's text included.
 */
import { z } from 'zod';
import {
  EngineError,
  type ChatMessage,
  type ConversationMessage,
  type GenerateRequest,
  type GenerateResult,
  type GeneratedTokens,
  type ToolCallingEngine,
  type ToolDefinition,
  type ToolGenerateRequest,
  type ToolUse,
} from '../../core/protocols/engineProtocol';
import { ZERO_ADAPTER_NAME } from '../httpEngine/loraFolders';
import { RuntimeLoraEngineClient, stoppedError, type EngineEndpoint, type RuntimeLoraEngineOptions } from '../httpEngine/runtimeLoraEngineClient';
import { sseData } from '../httpEngine/sseData';

export type VllmEndpoint = EngineEndpoint;

const tokenIdLabel = z.string().regex(/^token_id:\d+$/);
const idOf = (label: string): number => Number(tokenIdLabel.parse(label).slice('token_id:'.length));

const logprobEntrySchema = z.looseObject({
  token: z.string(),
  logprob: z.number(),
  top_logprobs: z.array(z.looseObject({ token: z.string(), logprob: z.number() })),
});
type LogprobEntry = z.infer<typeof logprobEntrySchema>;

const chatResponseSchema = z.looseObject({
  model: z.string(),
  prompt_token_ids: z.array(z.int().min(0)).nullable().optional(),
  choices: z
    .array(
      z.looseObject({
        message: z.looseObject({
          content: z.string().nullable(),
          tool_calls: z.array(z.looseObject({ id: z.string().min(1), function: z.looseObject({ name: z.string().min(1), arguments: z.string() }) })).nullish(),
        }),
        finish_reason: z.string().nullable(),
        token_ids: z.array(z.int().min(0)).nullable().optional(),
        logprobs: z.looseObject({ content: z.array(logprobEntrySchema) }),
      }),
    )
    .length(1),
  usage: z.looseObject({ prompt_tokens: z.int().nonnegative(), completion_tokens: z.int().nonnegative() }),
});

/** One event of a streamed chat completion: a delta of the one choice, or (last) the usage alone. */
const chatChunkSchema = z.looseObject({
  model: z.string(),
  prompt_token_ids: z.array(z.int().min(0)).nullish(),
  choices: z
    .array(
      z.looseObject({
        delta: z.looseObject({ content: z.string().nullish() }),
        finish_reason: z.string().nullish(),
        token_ids: z.array(z.int().min(0)).nullish(),
        logprobs: z.looseObject({ content: z.array(logprobEntrySchema).nullish() }).nullish(),
      }),
    )
    .max(1),
  usage: z.looseObject({ prompt_tokens: z.int().nonnegative(), completion_tokens: z.int().nonnegative() }).nullish(),
});

const tokenizeResponseSchema = z.looseObject({ count: z.int().nonnegative() });

/** The tokens of log-prob entries as the protocol reports them: ids, raw log-probs and the true top-K. */
function tokensOf(content: readonly LogprobEntry[], k: number): Omit<GeneratedTokens, 'text'> {
  const best = content.map((c) => {
    const byId = new Map<number, number>();
    for (const t of c.top_logprobs) byId.set(idOf(t.token), t.logprob);
    return [...byId.entries()].sort((a, b) => b[1] - a[1]).slice(0, k);
  });
  return {
    tokenIds: content.map((c) => idOf(c.token)),
    logprobs: content.map((c) => c.logprob),
    topIds: best.map((entries) => entries.map(([id]) => id)),
    topLogprobs: best.map((entries) => entries.map(([, logprob]) => logprob)),
  };
}

/** The engine protocol's messages in OpenAI's form (assistant `tool_calls`, tool `tool_call_id`). */
function openAiMessages(messages: readonly ConversationMessage[]): unknown[] {
  return messages.map((message) => {
    if (message.role === 'tool') return { role: 'tool', content: message.content, tool_call_id: message.toolCallId };
    if ('toolCalls' in message) {
      return {
        role: 'assistant',
        content: message.content === '' ? null : message.content,
        tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
      };
    }
    return { role: message.role, content: message.content };
  });
}

const openAiTools = (tools: readonly ToolDefinition[]): unknown[] => tools.map((tool) => ({ type: 'function', function: tool }));

/** The request fields that offer tools (none when the conversation only holds earlier tool turns). */
function toolFields(toolUse: ToolUse): Record<string, unknown> {
  if (toolUse.tools.length === 0) return {};
  const { choice } = toolUse;
  return {
    tools: openAiTools(toolUse.tools),
    tool_choice: typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } },
    ...(toolUse.parallelToolCalls !== null ? { parallel_tool_calls: toolUse.parallelToolCalls } : {}),
  };
}

/** A chat completion's request body: the sampling, and what the trainer needs back (ids, raw log-probs, the top-K). */
function chatBody(servedName: string, request: GenerateRequest | ToolGenerateRequest): Record<string, unknown> {
  const { sampling } = request;
  const conversation = 'toolUse' in request ? { messages: openAiMessages(request.messages), ...toolFields(request.toolUse) } : { messages: request.messages };
  return {
    model: servedName,
    ...conversation,
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
  };
}

export type VllmEngineClientOptions = RuntimeLoraEngineOptions;

export class VllmEngineClient extends RuntimeLoraEngineClient {
  constructor(options: VllmEngineClientOptions) {
    super(options, {
      engineName: 'vLLM',
      loadRoute: '/v1/load_lora_adapter',
      unloadRoute: '/v1/unload_lora_adapter',
      alreadyLoaded: /already (been )?loaded/i,
    });
  }

  readonly toolCalling: ToolCallingEngine = {
    generate: (request, onTokens) => this.generateOnCurrent((servedName, version) => this.#chat(servedName, version, request), onTokens),
    countPromptTokens: (messages, tools) => this.#countPrompt(openAiMessages(messages), tools.length > 0 ? { tools: openAiTools(tools) } : {}),
  };

  protected generateOn(servedName: string, version: string, request: GenerateRequest): Promise<GenerateResult> {
    return this.#chat(servedName, version, request);
  }

  async #chat(servedName: string, version: string, request: GenerateRequest | ToolGenerateRequest): Promise<GenerateResult> {
    const started = performance.now();
    const data = await this.postParsed('/v1/chat/completions', { ...chatBody(servedName, request), stream: false }, chatResponseSchema, this.#timeoutMs);
    return this.#toResult(data, servedName, version, request, performance.now() - started);
  }

  /**
   * The same completion streamed, so that the caller can stop it: each event's tokens
   * go to `onTokens` as vLLM decodes them, and when `stop` aborts, the connection
   * closes, which makes vLLM abort the request (it stops decoding it). The events are
   * put back together into the answer `#chat` reads, so both give the same result.
   */
  protected override async generateStoppable(
    servedName: string,
    version: string,
    request: GenerateRequest,
    stop: AbortSignal,
    onTokens?: (tokens: GeneratedTokens) => void,
  ): Promise<GenerateResult> {
    const started = performance.now();
    const route = '/v1/chat/completions';
    const body = { ...chatBody(servedName, request), stream: true, stream_options: { include_usage: true } };
    const response = await this.post(route, body, this.#timeoutMs, 'traffic', stop);
    if (!response.ok || response.body === null) throw await this.failure(route, response);
    let model = '';
    let promptIds: number[] | null = null;
    let text = '';
    let finishReason: string | null = null;
    let usage: z.infer<typeof chatChunkSchema>['usage'] = null;
    const content: LogprobEntry[] = [];
    const tokenIds: number[] = [];
    try {
      for await (const data of sseData(response.body)) {
        let event: unknown;
        try {
          event = JSON.parse(data);
        } catch {
          throw new EngineError('engine_error', `vLLM's streamed ${route} event is not JSON: ${data.slice(0, 80)}`);
        }
        const failed = z.looseObject({ error: z.looseObject({ message: z.string() }) }).safeParse(event);
        if (failed.success) throw new EngineError('engine_error', `${route}: vLLM failed mid-reply: ${failed.data.error.message}`);
        const chunk = chatChunkSchema.safeParse(event);
        if (!chunk.success)
          throw new EngineError('engine_error', `vLLM's streamed ${route} event is not what GateLab reads: ${chunk.error.issues[0]?.message ?? ''}`);
        model = chunk.data.model;
        promptIds ??= chunk.data.prompt_token_ids ?? null;
        usage = chunk.data.usage ?? usage;
        const choice = chunk.data.choices[0];
        if (!choice) continue;
        const entries = choice.logprobs?.content ?? [];
        const piece = choice.delta.content ?? '';
        text += piece;
        content.push(...entries);
        tokenIds.push(...(choice.token_ids ?? []));
        finishReason = choice.finish_reason ?? finishReason;
        if (entries.length > 0 || piece !== '') onTokens?.({ ...tokensOf(entries, request.logprobsTopK), text: piece });
      }
    } catch (error) {
      if (stop.aborted) throw stoppedError(route);
      throw error;
    }
    // Stopped as the reply ended: it is whole, and so is the answer.
    if (stop.aborted && finishReason === null) throw stoppedError(route);
    const assembled = chatResponseSchema.safeParse({
      model,
      prompt_token_ids: promptIds,
      // Token ids are checked against the log-probs' where vLLM sent them.
      choices: [{ message: { content: text }, finish_reason: finishReason, token_ids: tokenIds.length > 0 ? tokenIds : null, logprobs: { content } }],
      usage,
    });
    if (!assembled.success) throw new EngineError('engine_error', `vLLM's streamed ${route} answer is incomplete: ${assembled.error.issues[0]?.message ?? ''}`);
    return this.#toResult(assembled.data, servedName, version, request, performance.now() - started);
  }

  get #timeoutMs(): number {
    return this.options.requestTimeoutMs ?? 900_000;
  }

  #toResult(
    data: z.infer<typeof chatResponseSchema>,
    servedName: string,
    version: string,
    request: Pick<GenerateRequest, 'logprobsTopK' | 'seed'>,
    elapsedMs: number,
  ): GenerateResult {
    const choice = data.choices[0] as z.infer<typeof chatResponseSchema>['choices'][number];
    if (data.model !== servedName && data.model !== version) {
      throw new EngineError('engine_error', `vLLM answered as model ${data.model}, the request named ${version}`);
    }
    // `tool_calls` is vLLM telling the calls apart from text: the model ended its turn, which the engine protocol calls `stop`.
    const finishReason =
      choice.finish_reason === 'stop' || choice.finish_reason === 'tool_calls' ? 'stop' : choice.finish_reason === 'length' ? 'length' : null;
    if (!finishReason) throw new EngineError('engine_error', `vLLM finished the reply with ${JSON.stringify(choice.finish_reason)}`);
    const { tokenIds, logprobs, topIds, topLogprobs } = tokensOf(choice.logprobs.content, request.logprobsTopK);
    if (choice.token_ids && choice.token_ids.join(',') !== tokenIds.join(',')) {
      throw new EngineError('engine_error', 'vLLM returned token ids that disagree with its log-probs');
    }
    const toolCalls = (choice.message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments }));
    return {
      tokenIds,
      text: choice.message.content ?? '',
      logprobs,
      topIds,
      topLogprobs,
      finishReason,
      promptTokens: data.usage.prompt_tokens,
      completionTokens: data.usage.completion_tokens,
      ...(data.prompt_token_ids ? { promptIds: data.prompt_token_ids } : {}),
      version,
      seed: request.seed,
      timings: { promptMs: 0, decodeMs: elapsedMs },
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
    };
  }

  countPromptTokens(messages: readonly ChatMessage[]): Promise<number> {
    return this.#countPrompt(messages, {});
  }

  async #countPrompt(messages: readonly unknown[], tools: Record<string, unknown>): Promise<number> {
    const body = { model: this.servedName(this.currentVersion) ?? ZERO_ADAPTER_NAME, messages, ...tools, add_generation_prompt: true };
    return (await this.postParsed('/tokenize', body, tokenizeResponseSchema)).count;
  }
}
