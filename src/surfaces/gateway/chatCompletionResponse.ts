/**
 * OpenAI's response shapes for chat completions: the whole object
 * (`chat.completion`), the streamed chunks (`chat.completion.chunk`) and the
 * `logprobs` block (token strings, UTF-8 bytes, log-probs, top alternatives).
 */
import { randomBytes } from 'node:crypto';
import type { GeneratedTokens } from '../../core/protocols/engineProtocol';
import type { GatewayTokenizer } from '../../core/protocols/gatewayTokenizer';

export type TopLogprob = { token: string; logprob: number; bytes: number[] };
export type TokenLogprob = TopLogprob & { top_logprobs: TopLogprob[] };
export type ChoiceLogprobs = { content: TokenLogprob[]; refusal: null };
export type Usage = { prompt_tokens: number; completion_tokens: number; total_tokens: number };
export type FinishReason = 'stop' | 'length';

export type ChatCompletion = {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  system_fingerprint: string;
  choices: [
    {
      index: 0;
      message: { role: 'assistant'; content: string; refusal: null };
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
    delta: { role?: 'assistant'; content?: string };
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

export function chatCompletion(
  frame: CompletionFrame,
  content: string,
  logprobs: ChoiceLogprobs | null,
  finishReason: FinishReason,
  usage: Usage,
): ChatCompletion {
  return {
    id: frame.id,
    object: 'chat.completion',
    created: frame.created,
    model: frame.model,
    system_fingerprint: frame.systemFingerprint,
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs, finish_reason: finishReason }],
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
