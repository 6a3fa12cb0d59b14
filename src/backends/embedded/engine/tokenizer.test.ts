import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SPECIAL_TOKENS, Tokenizer } from './tokenizer';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const tokenizerPath = `${process.env.GATELAB_TEST_MODEL_DIR ?? `${repoRoot}assets/models/policy`}/tokenizer.json`;
const vectorsPath = `${repoRoot}tools/model/tokenizer_vectors.json`;

function tiny(pieces: string[]): Tokenizer {
  return new Tokenizer({ version: 1, specials: [...SPECIAL_TOKENS], vocab: [...SPECIAL_TOKENS, ...pieces] });
}

describe('Tokenizer (spec rules on a small vocabulary)', () => {
  const tok = tiny([' the', 'the', ' 4', '4', '8', ' ', '\n', '=', ' =', 'a', 'b', 'c', ' a', '.', '×', ' ×']);
  const id = (piece: string) => tok.vocab.indexOf(piece);

  it('splits words with their leading space and digits one by one', () => {
    expect(tok.encode('the 48')).toEqual([id('the'), id(' 4'), id('8')]);
    expect(tok.encode(' the\n4')).toEqual([id(' the'), id('\n'), id('4')]);
  });

  it('falls back to characters, then <|unk|>', () => {
    // " abc" is not in the vocab: its characters are, one by one.
    expect(tok.encode(' abc')).toEqual([id(' '), id('a'), id('b'), id('c')]);
    expect(tok.encode('z')).toEqual([tok.unkId]);
    expect(tok.encode(' ×')).toEqual([id(' ×')]);
  });

  it('never produces specials from text', () => {
    const ids = tok.encode('<|end|>');
    expect(ids).not.toContain(tok.endId);
    expect(ids.every((i) => i === tok.unkId)).toBe(true);
  });

  it('decodes specials to "" except <|eq|> to "="', () => {
    expect(tok.decode([tok.assistantId, id(' 4'), tok.eqId, id(' 4'), tok.endId])).toBe(' 4= 4');
  });

  it('applies the chat template', () => {
    const ids = tok.encodeChat([
      { role: 'system', content: 'a' },
      { role: 'user', content: 'b' },
    ]);
    expect(ids).toEqual([tok.systemId, id('a'), tok.endId, tok.userId, id('b'), tok.endId, tok.assistantId]);
    expect(tok.encodeChat([{ role: 'assistant', content: 'c' }], false)).toEqual([tok.assistantId, id('c'), tok.endId]);
  });

  it('rejects a file whose specials are not first and in order', () => {
    expect(() => Tokenizer.fromJson({ version: 1, specials: [...SPECIAL_TOKENS], vocab: ['x', ...SPECIAL_TOKENS] })).toThrow(/specials/);
    expect(() => Tokenizer.fromJson({ version: 2, specials: [], vocab: [] })).toThrow(/tokenizer.json/);
  });
});

const VectorsSchema = z.object({
  cases: z.array(z.object({ text: z.string(), ids: z.array(z.number().int()), decoded: z.string() })).min(1),
  chat: z.object({
    messages: z.array(z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() })),
    prompt_ids: z.array(z.number().int()),
  }),
});

// The Python build writes both files; until it has, there is nothing to compare.
describe.skipIf(!existsSync(vectorsPath) || !existsSync(tokenizerPath))('Tokenizer against the Python build', () => {
  it('encodes every committed vector exactly as Python does', () => {
    const tok = Tokenizer.fromJson(JSON.parse(readFileSync(tokenizerPath, 'utf8')));
    const { cases, chat } = VectorsSchema.parse(JSON.parse(readFileSync(vectorsPath, 'utf8')));
    for (const vector of cases) {
      expect(tok.encode(vector.text), JSON.stringify(vector.text)).toEqual(vector.ids);
      expect(tok.decode(vector.ids)).toBe(vector.decoded);
    }
    expect(tok.encodeChat(chat.messages)).toEqual(chat.prompt_ids);
  });
});
