/**
 * The lab side of the engine protocol (docs/internals.md, "The engine
 * worker"): what the gateway and the serving state need from an engine.
 * The worker-backed implementation lives below the interface; unit tests
 * use a test double of the interface, integration tests the real worker.
 */
import type { EngineChatMessage } from './chatCompletionRequest';

/** A promoted adapter as the pointer names it; `path` is its content-addressed blob. */
export type AdapterRef = { version: string; sha256: string; path: string };

export type SamplingParams = { temperature: number; topP: number; topK: number; maxTokens: number };

export type GenerateRequest = {
  messages: EngineChatMessage[];
  sampling: SamplingParams;
  seed: number;
  logprobsTopK: number;
  hint?: string;
};

/** Tokens produced since the previous progress report (streaming). */
export type GeneratedTokens = {
  tokenIds: number[];
  logprobs: number[];
  topIds: number[][];
  topLogprobs: number[][];
  forced: boolean[];
};

export type GenerateResult = GeneratedTokens & {
  text: string;
  finishReason: 'stop' | 'length';
  promptTokens: number;
  completionTokens: number;
  /** The adapter version that produced this reply, as the engine saw it. */
  version: string;
  /** Worker-side wall times, when the engine reports them. */
  timings?: { promptMs: number; decodeMs: number };
};

export interface EngineClient {
  /** `onTokens` is called with new tokens as they are decoded, when the engine streams. */
  generate(request: GenerateRequest, onTokens?: (tokens: GeneratedTokens) => void): Promise<GenerateResult>;
  /** Loads and hash-checks an adapter (null = the base model); resolves with the version now loaded. */
  setAdapter(adapter: AdapterRef | null): Promise<string>;
  close(): Promise<void>;
}

/** An error the engine answered with (`{ id, error: { code, message } }`). */
export class EngineError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}
