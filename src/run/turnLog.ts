/**
 * Every completed turn the gateway served, with OpenClaw's session headers,
 * kept in memory for the run to read (it judges a main turn from its next
 * state, trains on its tokens, log-probs and top-K) and, through an optional
 * append hook, journaled by the run.
 */
import type { EngineChatMessage } from '../surfaces/gateway/chatCompletionRequest';
import type { AffinityHeaders } from '../surfaces/gateway/turnHeaders';
import type { SamplingParams, ToolCall, ToolUse } from '../core/protocols/engineProtocol';

export const turnTypes = ['main', 'side'] as const;
export type TurnType = (typeof turnTypes)[number];

export type TurnRecord = {
  /** The completion id returned to the client (`chatcmpl-…`). */
  id: string;
  /** `X-Session-Id`, or null when the client sent none. */
  sessionId: string | null;
  /** `X-Turn-Type`; absent means `side` (only main turns train, as in OpenClaw-RL). */
  turnType: TurnType;
  /** `X-Session-Done` was true on this request. */
  sessionDone: boolean;
  /** OpenClaw's session-affinity headers, when sent (absent: none was; live mode groups turns by them). */
  affinity?: AffinityHeaders;
  model: string;
  messages: EngineChatMessage[];
  /** The tools the engine was given with the messages (absent: none; an engine that cannot call tools is never given any). */
  toolUse?: ToolUse;
  sampling: SamplingParams;
  seed: number;
  stream: boolean;
  response: {
    text: string;
    tokenIds: number[];
    logprobs: number[];
    topIds: number[][];
    topLogprobs: number[][];
    /** Embedded engine only: calculator tokens the engine inserted; they never enter a loss. */
    forced?: boolean[];
    /** The prompt ids the engine built, when it reports them. */
    promptIds?: number[];
    finishReason: 'stop' | 'length';
    /** The calls the model made (their text is in tokenIds, as every token is). */
    toolCalls?: ToolCall[];
    promptTokens: number;
    completionTokens: number;
  };
  /** The serving version that produced the reply, and its blob hash (null = base). */
  version: string;
  sha256: string | null;
  startedAt: string;
  timings: {
    /** Before the engine call: waiting for a lease (long only while a swap is in progress) and the engine counting the prompt. */
    queueMs: number;
    /** From the engine call to its result. */
    engineMs: number;
    /** From the engine call to the first token, when streamed. */
    firstTokenMs: number | null;
    /** Worker-side prefill/decode split, as the engine reports it. */
    promptMs: number;
    decodeMs: number;
    totalMs: number;
  };
};

export type TurnAppendHook = (turn: TurnRecord) => void | Promise<void>;

export class TurnLog {
  readonly #turns: TurnRecord[] = [];
  readonly #hooks = new Set<TurnAppendHook>();

  /**
   * Adds a turn and waits for every hook: the gateway finishes a response only
   * after the run has journaled its turn, so a journal failure is reported to
   * the client instead of losing the turn silently.
   */
  async append(turn: TurnRecord): Promise<void> {
    this.#turns.push(turn);
    for (const hook of this.#hooks) await hook(turn);
  }

  /** Registers an append hook; returns the function that removes it. */
  onAppend(hook: TurnAppendHook): () => void {
    this.#hooks.add(hook);
    return () => this.#hooks.delete(hook);
  }

  all(): readonly TurnRecord[] {
    return this.#turns;
  }

  forSession(sessionId: string): TurnRecord[] {
    return this.#turns.filter((turn) => turn.sessionId === sessionId);
  }

  get size(): number {
    return this.#turns.length;
  }
}
