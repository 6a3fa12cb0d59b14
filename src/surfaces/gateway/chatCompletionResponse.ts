/**
 * OpenAI's response shapes for chat completions: the whole object
 * (`chat.completion`), the streamed chunks (`chat.completion.chunk`) and the
 * `logprobs` block (token strings, UTF-8 bytes, log-probs, top alternatives).
 */
import { randomBytes } from 'node:crypto';
import type { GeneratedTokens, GenerateResult, ToolCall, ToolChoice } from '../../core/protocols/engineProtocol';
import type { GatewayTokenizer } from '../../core/protocols/gatewayTokenizer';

export type TopLogprob = { token: string; logprob: number; bytes: number[] };
export type TokenLogprob = TopLogprob & { top_logprobs: TopLogprob[] };
export type ChoiceLogprobs = { content: TokenLogprob[]; refusal: null };
export type Usage = { prompt_tokens: number; completion_tokens: number; total_tokens: number };
export type FinishReason = 'stop' | 'length' | 'tool_calls';
export type ToolCallOut = { id: string; type: 'function'; function: { name: string; arguments: string } };
/**
 * A piece of a streamed call, OpenAI's `delta.tool_calls[]`: `index` tells the
 * calls apart; a call's first piece names it (`id`, `type`, `function.name`,
 * empty `arguments`), and the pieces after it carry only the next part of
 * `function.arguments`.
 */
export type ToolCallDelta =
  { index: number; id: string; type: 'function'; function: { name: string; arguments: string } } | { index: number; function: { arguments: string } };

export type ChatCompletion = {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  system_fingerprint: string;
  choices: [
    {
      index: 0;
      message: { role: 'assistant'; content: string | null; refusal: null; tool_calls?: ToolCallOut[] };
      logprobs: ChoiceLogprobs | null;
      finish_reason: FinishReason;
    },
  ];
  usage: Usage;
};

export type ChatCompletionChunk = {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  system_fingerprint: string;
  choices: Array<{
    index: 0;
    delta: { role?: 'assistant'; content?: string; tool_calls?: ToolCallDelta[] };
    logprobs: ChoiceLogprobs | null;
    finish_reason: FinishReason | null;
  }>;
  usage?: Usage | null;
};

/** Identity and framing shared by every object of one completion. */
export type CompletionFrame = { id: string; created: number; model: string; systemFingerprint: string };

export function newCompletionFrame(model: string, systemFingerprint: string): CompletionFrame {
  return {
    id: `chatcmpl-${randomBytes(12).toString('hex')}`,
    created: Math.floor(Date.now() / 1000),
    model,
    systemFingerprint,
  };
}

export function usageOf(promptTokens: number, completionTokens: number): Usage {
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

const utf8Bytes = (text: string): number[] => Array.from(Buffer.from(text, 'utf8'));

/**
 * One entry per token that is part of the reply's text (control tokens such
 * as the end of turn are left out, as OpenAI leaves out its stop token), with
 * the first `topCount` alternatives the engine returned.
 */
export function logprobsContent(tokens: GeneratedTokens, tokenizer: GatewayTokenizer, topCount: number): TokenLogprob[] {
  const content: TokenLogprob[] = [];
  tokens.tokenIds.forEach((id, position) => {
    if (tokenizer.isControl(id)) return;
    const text = tokenizer.tokenText(id);
    const topIds = tokens.topIds[position] ?? [];
    const topLogprobs = tokens.topLogprobs[position] ?? [];
    content.push({
      token: text,
      logprob: tokens.logprobs[position] ?? Number.NEGATIVE_INFINITY,
      bytes: utf8Bytes(text),
      top_logprobs: topIds.slice(0, topCount).map((topId, k) => {
        const label = tokenizer.tokenLabel(topId);
        return { token: label, logprob: topLogprobs[k] ?? Number.NEGATIVE_INFINITY, bytes: utf8Bytes(label) };
      }),
    });
  });
  return content;
}

const toolCallOut = (call: ToolCall): ToolCallOut => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } });

/**
 * The arguments' JSON cut as a model writes it, a few characters at a time:
 * each run of word characters, of white space, or of anything else is a piece
 * (`{"`, `path`, `":"`, …), so no piece splits a code point.
 */
export function argumentPieces(json: string): string[] {
  return json.match(/[\p{L}\p{N}_]+|\s+|[^\p{L}\p{N}_\s]+/gu) ?? [];
}

/**
 * A reply's calls as OpenAI streams them, one delta per chunk: for each call
 * in turn, its head (index, id, type, name, `arguments: ""`), then its
 * arguments in pieces (argumentPieces). The engines that make calls hand
 * them over whole, so the pieces are cut here; the client joins them back to
 * the same string.
 */
export function toolCallDeltas(calls: readonly ToolCall[]): ToolCallDelta[] {
  return calls.flatMap((call, index): ToolCallDelta[] => [
    { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
    ...argumentPieces(call.arguments).map((piece) => ({ index, function: { arguments: piece } })),
  ]);
}

/**
 * OpenAI's finish reason: `tool_calls` when the model stopped after calling
 * tools it chose to call (`auto`, `required`); a call forced by naming the
 * function ends with `stop`, as on api.openai.com (and vLLM).
 */
export function finishReasonOf(result: Pick<GenerateResult, 'finishReason' | 'toolCalls'>, choice: ToolChoice | null): FinishReason {
  const called = (result.toolCalls?.length ?? 0) > 0;
  const named = choice !== null && typeof choice === 'object';
  if (called && result.finishReason === 'stop' && !named) return 'tool_calls';
  return result.finishReason;
}

/** The reply as OpenAI's message: text, or `null` content beside the tool calls when the model wrote none. */
export function chatCompletion(
  frame: CompletionFrame,
  reply: { text: string; toolCalls: readonly ToolCall[] },
  logprobs: ChoiceLogprobs | null,
  finishReason: FinishReason,
  usage: Usage,
): ChatCompletion {
  const called = reply.toolCalls.length > 0;
  const message: ChatCompletion['choices'][0]['message'] = called
    ? { role: 'assistant', content: reply.text === '' ? null : reply.text, refusal: null, tool_calls: reply.toolCalls.map(toolCallOut) }
    : { role: 'assistant', content: reply.text, refusal: null };
  return {
    id: frame.id,
    object: 'chat.completion',
    created: frame.created,
    model: frame.model,
    system_fingerprint: frame.systemFingerprint,
    choices: [{ index: 0, message, logprobs, finish_reason: finishReason }],
    usage,
  };
}

export function chatCompletionChunk(
  frame: CompletionFrame,
  choice: ChatCompletionChunk['choices'][number] | null,
  usage: Usage | null | undefined,
): ChatCompletionChunk {
  const chunk: ChatCompletionChunk = {
    id: frame.id,
    object: 'chat.completion.chunk',
    created: frame.created,
    model: frame.model,
    system_fingerprint: frame.systemFingerprint,
    choices: choice ? [choice] : [],
  };
  // With stream_options.include_usage every chunk carries `usage` (null until the last one).
  if (usage !== undefined) chunk.usage = usage;
  return chunk;
}
