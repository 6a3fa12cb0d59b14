/**
 * The gateway's view of the embedded policy's tokenizer
 * (electron/workers/embedded/tokenizer.ts, the same code the engine runs):
 * prompt length through the chat template, and token strings for logprobs.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { Tokenizer } from '../../workers/embedded/tokenizer';
import type { EngineChatMessage } from './chatCompletionRequest';
import type { GatewayTokenizer } from './gatewayTokenizer';

export class PolicyTokenizer implements GatewayTokenizer {
  constructor(
    private readonly tokenizer: Tokenizer,
    readonly maxPositions: number,
  ) {}

  countPromptTokens(messages: readonly EngineChatMessage[]): number {
    return this.tokenizer.encodeChat(messages, true).length;
  }

  tokenText(id: number): string {
    return this.tokenizer.tokenText(id);
  }

  tokenLabel(id: number): string {
    // `<|eq|>` reads as "=" in a reply; other specials are shown by name (e.g. the end of turn).
    return this.isControl(id) ? (this.tokenizer.vocab[id] ?? `<|${id}|>`) : this.tokenizer.tokenText(id);
  }

  isControl(id: number): boolean {
    return this.tokenizer.isSpecial(id) && id !== this.tokenizer.eqId;
  }
}

const modelConfigSchema = z.object({ max_position_embeddings: z.int().positive() });

/** Reads `tokenizer.json` and the context length from `config.json` of a model folder. */
export async function loadPolicyTokenizer(modelDir: string): Promise<PolicyTokenizer> {
  const tokenizerJson = JSON.parse(await readFile(join(modelDir, 'tokenizer.json'), 'utf8')) as unknown;
  const config = modelConfigSchema.parse(JSON.parse(await readFile(join(modelDir, 'config.json'), 'utf8')) as unknown);
  return new PolicyTokenizer(Tokenizer.fromJson(tokenizerJson), config.max_position_embeddings);
}
