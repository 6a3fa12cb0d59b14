import { z } from 'zod';

/**
 * The embedded policy's tokenizer (docs/internals.md, "Tokenizer"). It must
 * agree token for token with the Python build (tools/model/); the committed
 * vectors in tools/model/tokenizer_vectors.json are the proof.
 */

export const SPECIAL_TOKENS = ['<|pad|>', '<|system|>', '<|user|>', '<|assistant|>', '<|end|>', '<|eq|>', '<|unk|>'] as const;

export type SpecialToken = (typeof SPECIAL_TOKENS)[number];
export type ChatRole = 'system' | 'user' | 'assistant';

export interface ChatMessage {
  readonly role: ChatRole;
  readonly content: string;
}

export const TokenizerFileSchema = z.object({
  version: z.literal(1),
  specials: z.array(z.string()),
  vocab: z.array(z.string()).min(SPECIAL_TOKENS.length),
});
export type TokenizerFile = z.infer<typeof TokenizerFileSchema>;

/**
 * The pre-tokenizer of the spec: a word with its leading space; one digit
 * (the first with an optional leading space); a newline; one other character
 * with an optional leading space; any other single whitespace. The `u` flag
 * makes `.`-like classes match whole code points, as Python's `re` does.
 */
const PIECE_PATTERN = / ?[A-Za-z]+| ?[0-9]|[0-9]|\n| ?[^A-Za-z0-9\s]|\s/gu;

export class Tokenizer {
  readonly vocab: readonly string[];
  readonly vocabSize: number;
  readonly padId: number;
  readonly systemId: number;
  readonly userId: number;
  readonly assistantId: number;
  readonly endId: number;
  readonly eqId: number;
  readonly unkId: number;
  /** Non-special pieces only: specials are never produced from text. */
  private readonly pieceToId: ReadonlyMap<string, number>;
  /** Decoded string of each id, specials already mapped (`<|eq|>` → "="). */
  private readonly idToText: readonly string[];

  constructor(file: TokenizerFile) {
    const specials = file.specials;
    if (specials.length !== SPECIAL_TOKENS.length || specials.some((s, i) => s !== SPECIAL_TOKENS[i] || file.vocab[i] !== s)) {
      throw new Error(`tokenizer: specials must be ${JSON.stringify(SPECIAL_TOKENS)} and be the first vocab entries`);
    }
    this.vocab = file.vocab;
    this.vocabSize = file.vocab.length;
    [this.padId, this.systemId, this.userId, this.assistantId, this.endId, this.eqId, this.unkId] = SPECIAL_TOKENS.map((_, i) => i) as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const pieceToId = new Map<string, number>();
    file.vocab.forEach((piece, id) => {
      if (id < SPECIAL_TOKENS.length) return;
      if (pieceToId.has(piece)) throw new Error(`tokenizer: duplicate vocab entry ${JSON.stringify(piece)}`);
      pieceToId.set(piece, id);
    });
    this.pieceToId = pieceToId;
    this.idToText = file.vocab.map((piece, id) => {
      if (id === this.eqId) return '=';
      return id < SPECIAL_TOKENS.length ? '' : piece;
    });
  }

  static fromJson(json: unknown): Tokenizer {
    const parsed = TokenizerFileSchema.safeParse(json);
    if (!parsed.success) throw new Error(`tokenizer.json: ${parsed.error.message}`);
    return new Tokenizer(parsed.data);
  }

  encode(text: string): number[] {
    const ids: number[] = [];
    for (const match of text.matchAll(PIECE_PATTERN)) {
      const piece = match[0];
      const id = this.pieceToId.get(piece);
      if (id !== undefined) {
        ids.push(id);
        continue;
      }
      for (const char of piece) ids.push(this.pieceToId.get(char) ?? this.unkId);
    }
    return ids;
  }

  decode(ids: readonly number[]): string {
    let text = '';
    for (const id of ids) text += this.tokenText(id);
    return text;
  }

  /** The decoded text of one id (specials: "" except `<|eq|>` → "="). */
  tokenText(id: number): string {
    const text = this.idToText[id];
    if (text === undefined) throw new Error(`tokenizer: id ${id} out of range 0..${this.vocabSize - 1}`);
    return text;
  }

  isSpecial(id: number): boolean {
    return id >= 0 && id < SPECIAL_TOKENS.length;
  }

  roleId(role: ChatRole): number {
    switch (role) {
      case 'system':
        return this.systemId;
      case 'user':
        return this.userId;
      case 'assistant':
        return this.assistantId;
      default: {
        const unreachable: never = role;
        throw new Error(`tokenizer: unknown role ${String(unreachable)}`);
      }
    }
  }

  /**
   * The chat template: each message is `<|role|>` + encode(content) +
   * `<|end|>`; with `addGenerationPrompt`, a trailing `<|assistant|>`.
   */
  encodeChat(messages: readonly ChatMessage[], addGenerationPrompt = true): number[] {
    const ids: number[] = [];
    for (const message of messages) {
      ids.push(this.roleId(message.role));
      for (const id of this.encode(message.content)) ids.push(id);
      ids.push(this.endId);
    }
    if (addGenerationPrompt) ids.push(this.assistantId);
    return ids;
  }
}
