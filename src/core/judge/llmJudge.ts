// The LLM back end: asks any OpenAI-compatible chat endpoint (vLLM, SGLang,
// GateLab's own gateway, a hosted API) with the PRM and hint prompts of
// llmPrompts.ts, m times each, and parses the votes. Uses the global fetch.
//
// Failures are kept visible: a request that fails counts as an invalid vote
// and is listed in `errors`; when every request of a judgment fails, the
// judge is unreachable or misconfigured and judging throws
// JudgeUnavailableError instead of quietly scoring the turn 0.

import { z } from 'zod';
import { hintMessages, parseHintVote, parsePrmVote, prmMessages } from './llmPrompts';
import type { ChatMessage } from './teacherInput';
import { DEFAULT_HINT_MIN_CHARS, type HintJudge, type PrmJudge, type TurnJudgeInput } from './turnJudge';
import { pluralityVote, selectHint } from './votes';

export const llmEndpointSchema = z.strictObject({
  /** The API root, e.g. http://127.0.0.1:30002/v1 (requests go to {baseUrl}/chat/completions). */
  baseUrl: z.url({ protocol: /^https?$/u }),
  model: z.string().min(1),
  /** Sent as a Bearer token when not empty. */
  apiKey: z.string().default(''),
  /** m: requests per judgment (OpenClaw-RL's PRM_M defaults to 3). */
  votes: z.int().min(1).max(32).default(3),
  /** OpenClaw-RL samples its judge at 0.6. */
  temperature: z.number().min(0).max(2).default(0.6),
  /** Room for a thinking model to reason before its \boxed{} answer. */
  maxTokens: z.int().min(1).default(4096),
  /** When set, vote i asks with seed + i, so a run's judgments can be repeated. */
  seed: z.int().min(0).optional(),
  timeoutMs: z.int().min(1).default(300_000),
});
export type LlmEndpointConfig = z.input<typeof llmEndpointSchema>;
type Endpoint = z.output<typeof llmEndpointSchema>;

export class JudgeUnavailableError extends Error {
  constructor(
    readonly judge: 'prm' | 'hint',
    readonly errors: readonly string[],
  ) {
    super(`the ${judge} judge could not be reached: every request failed (${errors[0] ?? 'no request made'})`);
    this.name = 'JudgeUnavailableError';
  }
}

const chatCompletionSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable().optional() }) })).min(1, 'the response has no choices'),
});

/** One chat completion's text, or an Error saying what went wrong. */
async function complete(endpoint: Endpoint, messages: ChatMessage[], voteIndex: number): Promise<string | Error> {
  const url = `${endpoint.baseUrl.replace(/\/+$/u, '')}/chat/completions`;
  const body = {
    model: endpoint.model,
    messages,
    temperature: endpoint.temperature,
    max_tokens: endpoint.maxTokens,
    stream: false,
    ...(endpoint.seed === undefined ? {} : { seed: endpoint.seed + voteIndex }),
  };
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(endpoint.apiKey === '' ? {} : { authorization: `Bearer ${endpoint.apiKey}` }),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(endpoint.timeoutMs),
    });
    const text = await response.text();
    if (!response.ok) return new Error(`${url}: HTTP ${response.status}: ${text.slice(0, 300)}`);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return new Error(`${url}: the response is not JSON: ${text.slice(0, 120)}`);
    }
    const parsed = chatCompletionSchema.safeParse(json);
    if (!parsed.success) return new Error(`${url}: not a chat completion: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    return parsed.data.choices[0]?.message.content ?? '';
  } catch (e) {
    return new Error(`${url}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Asks m times in parallel; returns each text ('' for a failed request) and the failures. */
async function askVotes(endpoint: Endpoint, messages: ChatMessage[]): Promise<{ texts: (string | null)[]; errors: string[] }> {
  const results = await Promise.all(Array.from({ length: endpoint.votes }, (_, i) => complete(endpoint, messages, i)));
  return {
    texts: results.map((r) => (r instanceof Error ? null : r)),
    errors: results.filter((r): r is Error => r instanceof Error).map((e) => e.message),
  };
}

export function createLlmPrm(config: LlmEndpointConfig): PrmJudge {
  const endpoint = llmEndpointSchema.parse(config);
  return {
    kind: 'openai',
    async score({ assistantOutput, nextState }: TurnJudgeInput) {
      const { texts, errors } = await askVotes(endpoint, prmMessages(assistantOutput, nextState));
      if (texts.every((t) => t === null)) throw new JudgeUnavailableError('prm', errors);
      const votes = texts.map((t) => (t === null ? null : parsePrmVote(t)));
      return { score: pluralityVote(votes), votes, transcripts: texts.map((t) => t ?? ''), errors };
    },
  };
}

export function createLlmHintJudge(config: LlmEndpointConfig, minChars = DEFAULT_HINT_MIN_CHARS): HintJudge {
  const endpoint = llmEndpointSchema.parse(config);
  return {
    kind: 'openai',
    async extractHint({ assistantOutput, nextState }: TurnJudgeInput) {
      const { texts, errors } = await askVotes(endpoint, hintMessages(assistantOutput, nextState));
      if (texts.every((t) => t === null)) throw new JudgeUnavailableError('hint', errors);
      const candidates = texts.flatMap((t) => (t === null ? [] : [parseHintVote(t)]));
      return { ...selectHint(candidates, minChars), transcripts: texts.map((t) => t ?? ''), errors };
    },
  };
}
