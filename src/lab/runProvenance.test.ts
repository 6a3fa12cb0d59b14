import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { provenanceOfRecipe, readRunProvenance } from './runProvenance';

describe('a run folder’s provenance (recipe, seed, arm from its journal)', () => {
  it('reads the arm from the recorded recipe: control when it says so, trained when absent or anything else', () => {
    expect(provenanceOfRecipe({ name: 'embedded-gsm8k-style', seed: 7, arm: 'control' })).toEqual({ recipe: 'embedded-gsm8k-style', seed: 7, arm: 'control' });
    expect(provenanceOfRecipe({ name: 'embedded-gsm8k-style', seed: 7 })).toEqual({ recipe: 'embedded-gsm8k-style', seed: 7, arm: 'trained' });
    expect(provenanceOfRecipe({ name: 'x', seed: 1, arm: 'trained' }).arm).toBe('trained');
    expect(provenanceOfRecipe(null)).toEqual({ recipe: '—', seed: null, arm: 'trained' });
    expect(provenanceOfRecipe({ name: 3, seed: -1 })).toEqual({ recipe: '—', seed: null, arm: 'trained' });
  });

  it('reads the preference the recipe’s user states, and nothing from a preference without a statement', () => {
    const preference = { rule: { kind: 'max_words', words: 25 }, statement: 'Please answer in one or two short sentences.' };
    expect(provenanceOfRecipe({ name: 'p', seed: 2, preference })).toEqual({ recipe: 'p', seed: 2, arm: 'trained', preference: preference.statement });
    expect(provenanceOfRecipe({ name: 'p', seed: 2, preference: { rule: preference.rule } })).toEqual({ recipe: 'p', seed: 2, arm: 'trained' });
    expect(provenanceOfRecipe({ name: 'p', seed: 2, preference: 'short' })).toEqual({ recipe: 'p', seed: 2, arm: 'trained' });
  });

  it('reads the first line only; no journal is no provenance; a first line that is not run-started is refused', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'gatelab-provenance-'));
    expect(await readRunProvenance(dir)).toBeUndefined();
    const started = {
      seq: 0,
      at: '2026-12-05T02:00:00.000Z',
      type: 'run-started',
      runId: 'a',
      recipeFile: 'r.yaml',
      recipe: { name: 'embedded-gsm8k-style', seed: 4, arm: 'control' },
      baseVersion: { version: 'base', sha256: 'a'.repeat(64) },
    };
    // The rest of the journal is not read: even a damaged later line does not matter here.
    await writeFile(path.join(dir, 'journal.jsonl'), `${JSON.stringify(started)}\nnot json\n`);
    expect(await readRunProvenance(dir)).toEqual({ recipe: 'embedded-gsm8k-style', seed: 4, arm: 'control' });
    await writeFile(path.join(dir, 'journal.jsonl'), `${JSON.stringify({ seq: 0, at: started.at, type: 'run-resumed', pid: 1 })}\n`);
    await expect(readRunProvenance(dir)).rejects.toThrow('does not start with run-started');
    await writeFile(path.join(dir, 'journal.jsonl'), '{"torn');
    expect(await readRunProvenance(dir)).toBeUndefined();
  });
});
