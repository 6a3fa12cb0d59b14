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
 */
import { z } from 'zod';
import { EngineError, type ChatMessage, type GenerateRequest, type GenerateResult } from '../../core/protocols/engineProtocol';
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

export type VllmEngineClientOptions = RuntimeLoraEngineOptions;

export class VllmEngineClient extends RuntimeLoraEngineClient {
  constructor(options: VllmEngineClientOptions) {
    super(options, { engineName: 'vLLM', loadRoute: '/v1/load_lora_adapter', unloadRoute: '/v1/unload_lora_adapter', alreadyLoaded: /already (been )?loaded/i });
  }

  protected async generateOn(servedName: string, version: string, request: GenerateRequest): Promise<GenerateResult> {
    const started = performance.now();
    const { sampling } = request;
    const data = await this.postParsed(
      '/v1/chat/completions',
      {
        model: servedName,
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
      chatResponseSchema,
      this.options.requestTimeoutMs ?? 900_000,
    );
    return this.#toResult(data, servedName, version, request, performance.now() - started);
  }

  #toResult(data: z.infer<typeof chatResponseSchema>, servedName: string, version: string, request: GenerateRequest, elapsedMs: number): GenerateResult {
    const choice = data.choices[0] as z.infer<typeof chatResponseSchema>['choices'][number];
    if (data.model !== servedName && data.model !== version) {
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
    const body = { model: this.servedName(this.currentVersion) ?? ZERO_ADAPTER_NAME, messages, add_generation_prompt: true };
    return (await this.postParsed('/tokenize', body, tokenizeResponseSchema)).count;
  }
}
