/**
 * Test doubles for the gateway's unit tests only: a word-level tokenizer and
 * an engine that "generates" a seeded pick of words. They follow the engine
 * protocol's shapes so the gateway's HTTP, streaming, error and swap logic
 * can be tested without the model; the integration tests use the real engine.
 */
import type { EngineChatMessage } from '../chatCompletionRequest';
import {
  EngineError,
  type AdapterRef,
  type EngineClient,
  type EngineHealth,
  type EngineInfo,
  type GenerateRequest,
  type GenerateResult,
  type GeneratedTokens,
  type ToolCallingEngine,
  type ToolGenerateRequest,
} from '../../../core/protocols/engineProtocol';
import type { GatewayTokenizer } from '../../../core/protocols/gatewayTokenizer';

export const doubleVocab = ['<|end|>', ' the', ' answer', ' is', ' 4', '2', ' é', ' ok', ' plus', ' =', '.'] as const;
const END = 0;

/** role token + words + end token per message, then the generation prompt. */
function countWords(messages: readonly EngineChatMessage[]): number {
  return messages.reduce((sum, m) => sum + 2 + m.content.split(/\s+/).filter(Boolean).length, 0) + 1;
}

export class WordTokenizerDouble implements GatewayTokenizer {
  constructor(readonly maxPositions = 64) {}
  countPromptTokens(messages: readonly EngineChatMessage[]): Promise<number> {
    return Promise.resolve(countWords(messages));
  }
  tokenText(id: number): string {
    return id === END ? '' : (doubleVocab[id] ?? '');
  }
  tokenLabel(id: number): string {
    return doubleVocab[id] ?? `<${id}>`;
  }
  isControl(id: number): boolean {
    return id === END;
  }
}

/** A deferred the test resolves to let a blocked generation finish. */
export type Gate = { promise: Promise<void>; open(): void };
export function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

export class EngineDouble implements EngineClient {
  version = 'base';
  stream = true;
  calls: GenerateRequest[] = [];
  adapterCalls: Array<AdapterRef | null> = [];
  /** Set to make the next generate call fail the way a crashed engine would. */
  failNext: EngineError | Error | null = null;
  /** Set to make generate wait (after its first token) until the gate opens. */
  holdGeneration: Gate | null = null;
  /** Set to make setAdapter wait until the gate opens. */
  holdAdapter: Gate | null = null;
  /** Set to make generate report a different version than the one loaded. */
  reportVersion: string | null = null;
  closed = false;
  readonly info: EngineInfo = {
    baseSha256: '0'.repeat(64),
    vocabSize: doubleVocab.length,
    maxPositions: 64,
    vocabulary: { texts: doubleVocab.map((t, id) => (id === END ? '' : t)), control: [{ id: END, name: '<|end|>' }] },
  };

  async generate(request: GenerateRequest, onTokens?: (tokens: GeneratedTokens) => void): Promise<GenerateResult> {
    this.calls.push(request);
    const startVersion = this.version;
    if (this.failNext) {
      const failure = this.failNext;
      this.failNext = null;
      throw failure;
    }
    const wordIds = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    let state = request.seed >>> 0;
    const next = (): number => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return state;
    };
    const count = Math.min(request.sampling.maxTokens, 3 + (next() % 4));
    const ids = Array.from({ length: count }, () => wordIds[next() % wordIds.length] ?? 1);
    const finishReason = count < request.sampling.maxTokens ? 'stop' : 'length';
    if (finishReason === 'stop') ids.push(END);
    const k = request.logprobsTopK;
    const textOf = (some: readonly number[]): string => some.map((id) => (id === END ? '' : (doubleVocab[id] ?? ''))).join('');
    const tokens: GeneratedTokens = {
      tokenIds: ids,
      text: textOf(ids),
      logprobs: ids.map((_, i) => -0.1 * (i + 1)),
      topIds: ids.map((id) => [id, ...wordIds.filter((w) => w !== id)].slice(0, k)),
      topLogprobs: ids.map((_, i) => Array.from({ length: k }, (_, j) => -0.1 * (i + 1) - j)),
      forced: ids.map(() => false),
    };
    if (this.stream && onTokens) {
      for (let i = 0; i < ids.length; i += 1) {
        onTokens({ ...sliceTokens(tokens, i, i + 1), text: textOf(ids.slice(i, i + 1)) });
        if (i === 0 && this.holdGeneration) await this.holdGeneration.promise;
        await new Promise((resolve) => setImmediate(resolve));
      }
    } else if (this.holdGeneration) {
      await this.holdGeneration.promise;
    }
    return {
      ...tokens,
      finishReason,
      promptTokens: countWords(request.messages),
      completionTokens: ids.length,
      version: this.reportVersion ?? startVersion,
      seed: request.seed,
      timings: { promptMs: 0.5, decodeMs: 1.5 },
    };
  }

  async setAdapter(adapter: AdapterRef | null): Promise<string> {
    this.adapterCalls.push(adapter);
    if (this.holdAdapter) await this.holdAdapter.promise;
    this.version = adapter?.version ?? 'base';
    return this.version;
  }

  countPromptTokens(messages: readonly EngineChatMessage[]): Promise<number> {
    return Promise.resolve(countWords(messages));
  }

  async health(): Promise<EngineHealth> {
    return { ok: !this.closed, version: this.version, pending: 0 };
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

function sliceTokens(tokens: GeneratedTokens, start: number, end: number): Omit<GeneratedTokens, 'text'> {
  return {
    tokenIds: tokens.tokenIds.slice(start, end),
    logprobs: tokens.logprobs.slice(start, end),
    topIds: tokens.topIds.slice(start, end),
    topLogprobs: tokens.topLogprobs.slice(start, end),
    forced: tokens.forced?.slice(start, end) ?? [],
  };
}

/**
 * An engine that can call tools, for the gateway's tool tests: with
 * `tool_choice` other than `none` it calls the named function (or the first
 * offered) with fixed arguments after a little text; otherwise it answers
 * like EngineDouble. It records every tool request it got.
 */
export class ToolEngineDouble extends EngineDouble {
  toolCalls: ToolGenerateRequest[] = [];
  /** Text the model writes before its call ('' = a bare call). */
  preamble = '';
  readonly toolCalling: ToolCallingEngine = {
    generate: async (request, onTokens) => {
      this.toolCalls.push(request);
      const { tools, choice } = request.toolUse;
      const target = typeof choice === 'object' ? choice.name : choice === 'none' ? null : tools[0]?.name;
      const plain = { ...request, messages: request.messages.map((m) => ({ role: m.role === 'tool' ? 'user' : m.role, content: m.content }) as const) };
      if (target === undefined || target === null) return this.generate(plain, onTokens);
      const ids = [7, END];
      const tokens: GeneratedTokens = {
        tokenIds: ids,
        text: this.preamble,
        logprobs: [-0.1, -0.2],
        topIds: ids.map((id) => [id].slice(0, request.logprobsTopK)),
        topLogprobs: [[-0.1], [-0.2]].map((row) => row.slice(0, request.logprobsTopK)),
      };
      onTokens?.(tokens);
      return {
        ...tokens,
        finishReason: 'stop',
        toolCalls: [{ id: `call_${this.toolCalls.length}`, name: target, arguments: '{"city":"Paris"}' }],
        promptTokens: countWords(request.messages) + tools.length,
        completionTokens: ids.length,
        version: this.version,
        seed: request.seed,
        timings: { promptMs: 0.5, decodeMs: 1.5 },
      };
    },
    // Each offered tool costs one token of prompt here.
    countPromptTokens: (messages, tools) => Promise.resolve(countWords(messages) + tools.length),
  };
}
