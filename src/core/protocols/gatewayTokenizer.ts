/**
 * What the gateway needs to know about tokens: how long a prompt is (to
 * refuse a context overflow before queueing it, and to give a request
 * without max_tokens the rest of the context) and how each token reads
 * (OpenAI's logprobs carry token strings and bytes).
 */
import type { ChatMessage } from './engineProtocol';

export interface GatewayTokenizer {
  /** The model's context length, prompt and completion together. */
  readonly maxPositions: number;
  /** Tokens of the chat template for these messages, generation prompt included. */
  countPromptTokens(messages: readonly ChatMessage[]): Promise<number>;
  /** The text a token contributes to a reply ('' for control tokens such as the end of turn). */
  tokenText(id: number): string;
  /** How a token is shown among top log-probs: its text, or its literal name for a control token. */
  tokenLabel(id: number): string;
  /** True for tokens that are not part of the reply's text (end of turn, padding). */
  isControl(id: number): boolean;
}
