/**
 * The vocabulary of a Hugging Face model folder (its tokenizer.json), in the
 * engine protocol's form: the text each token id adds to a reply, and the
 * control tokens. An HTTP engine (vLLM, SGLang) does not report it, and the
 * gateway needs it to write OpenAI's `logprobs` without a tokenizer of its
 * own. Byte-level BPE only (GPT-2's byte↔unicode map: SmolLM2, Llama 3,
 * Qwen); another tokenizer type is refused by name.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { Vocabulary } from '../../core/protocols/engineProtocol';

const tokenizerJsonSchema = z.looseObject({
  model: z.looseObject({ type: z.string().optional(), vocab: z.record(z.string(), z.int().min(0)) }),
  pre_tokenizer: z.unknown().optional(),
  decoder: z.looseObject({ type: z.string() }).nullable().optional(),
  added_tokens: z.array(z.looseObject({ id: z.int().min(0), content: z.string(), special: z.boolean().default(false) })).default([]),
});

/** GPT-2's map from the printable characters byte-level BPE writes back to the bytes they stand for. */
function unicodeToByte(): Map<string, number> {
  const printable: number[] = [];
  for (let b = 33; b <= 126; b += 1) printable.push(b);
  for (let b = 161; b <= 172; b += 1) printable.push(b);
  for (let b = 174; b <= 255; b += 1) printable.push(b);
  const map = new Map<string, number>();
  for (const b of printable) map.set(String.fromCodePoint(b), b);
  let next = 0;
  for (let b = 0; b < 256; b += 1) {
    if (printable.includes(b)) continue;
    map.set(String.fromCodePoint(256 + next), b);
    next += 1;
  }
  return map;
}

/** A token's reply text: its bytes as UTF-8 (a token holding part of a character reads as U+FFFD, as OpenAI's token strings do). */
function byteLevelText(token: string, map: ReadonlyMap<string, number>): string {
  const bytes: number[] = [];
  for (const char of token) {
    const byte = map.get(char);
    if (byte === undefined) return token;
    bytes.push(byte);
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Reads `<modelDir>/tokenizer.json`; `vocabSize` (config.json's) sizes the table, ids past the tokenizer's read as ''. */
export async function hfVocabulary(modelDir: string, vocabSize: number): Promise<Vocabulary> {
  const file = path.join(modelDir, 'tokenizer.json');
  let parsed;
  try {
    parsed = tokenizerJsonSchema.parse(JSON.parse(await readFile(file, 'utf8')));
  } catch (error) {
    throw new Error(`cannot read the tokenizer of ${modelDir}: ${(error as Error).message}`, { cause: error });
  }
  if (parsed.decoder?.type !== 'ByteLevel') {
    throw new Error(`${file}: decoder ${JSON.stringify(parsed.decoder?.type ?? null)} is not byte-level BPE, the only kind GateLab reads`);
  }
  const map = unicodeToByte();
  const size = Math.max(vocabSize, ...Object.values(parsed.model.vocab).map((id) => id + 1), ...parsed.added_tokens.map((t) => t.id + 1));
  const texts: string[] = new Array<string>(size).fill('');
  for (const [token, id] of Object.entries(parsed.model.vocab)) texts[id] = byteLevelText(token, map);
  const control: Vocabulary['control'] = [];
  for (const added of parsed.added_tokens) {
    if (added.special) {
      texts[added.id] = '';
      control.push({ id: added.id, name: added.content });
    } else {
      texts[added.id] = added.content;
    }
  }
  return { texts, control };
}
