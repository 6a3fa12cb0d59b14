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
  type ToolCallingEngine,
  type ToolDefinition,
  type ToolGenerateRequest,
  type ToolUse,
} from '../../core/protocols/engineProtocol';
import { ZERO_ADAPTER_NAME } from '../httpEngine/loraFolders';
import { RuntimeLoraEngineClient, type EngineEndpoint, type RuntimeLoraEngineOptions } from '../httpEngine/runtimeLoraEngineClient';

export type VllmEndpoint = EngineEndpoint;

const tokenIdLabel = z.string().regex(/^token_id:\d+$/);
const idOf = (label: string): number => Number(tokenIdLabel.parse(label).slice('token_id:'.length));

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
    const { sampling } = request;
    const conversation = 'toolUse' in request ? { messages: openAiMessages(request.messages), ...toolFields(request.toolUse) } : { messages: request.messages };
    const data = await this.postParsed(
      '/v1/chat/completions',
      {
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
        stream: false,
      },
      chatResponseSchema,
      this.options.requestTimeoutMs ?? 900_000,
    );
    return this.#toResult(data, servedName, version, request, performance.now() - started);
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
    const toolCalls = (choice.message.tool_calls ?? []).map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments }));
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
