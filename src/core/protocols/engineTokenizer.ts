/**
 * The gateway's tokenizer for any engine that speaks the engine protocol:
 * prompt lengths from the engine itself (its own chat template), token
 * strings from the vocabulary it reported when it loaded. No tokenizer of a
 * particular model lives in the lab.
 */
import type { ChatMessage, EngineClient, Vocabulary } from './engineProtocol';
import type { GatewayTokenizer } from './gatewayTokenizer';

export class EngineTokenizer implements GatewayTokenizer {
  private readonly controlNames: ReadonlyMap<number, string>;
  private readonly vocabulary: Vocabulary;
  readonly maxPositions: number;

  constructor(private readonly engine: EngineClient) {
    this.vocabulary = engine.info.vocabulary;
    this.maxPositions = engine.info.maxPositions;
    this.controlNames = new Map(this.vocabulary.control.map((c) => [c.id, c.name]));
  }

  countPromptTokens(messages: readonly ChatMessage[]): Promise<number> {
    return this.engine.countPromptTokens(messages);
  }

  tokenText(id: number): string {
    if (this.controlNames.has(id)) return '';
    const text = this.vocabulary.texts[id];
    if (text === undefined) throw new Error(`token id ${id} is outside the engine's vocabulary (${this.vocabulary.texts.length})`);
    return text;
  }

  tokenLabel(id: number): string {
    return this.controlNames.get(id) ?? this.tokenText(id);
  }

  isControl(id: number): boolean {
    return this.controlNames.has(id);
  }
}
