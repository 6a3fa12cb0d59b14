// The command line's overrides as the journal records them: the control arm is
// part of the run's recipe, so everything that reads the run (the desktop's
// compare table, bench:recipe) knows which arm it was.
import { describe, expect, it } from 'vitest';
import { loadRecipe } from '../core/recipe/loadRecipe';
import { embeddedRecipe } from '../../tests/helpers/testRecipe';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadRunRecipe } from './recipeSchemas';
import { applyOverrides, createRun } from './createRun';
import { RunNotRunnableError } from './recipeBackends';

const smollm2Recipe = path.join(import.meta.dirname, '../../recipes/smollm2-135m-cpu.yaml');

describe('applyOverrides', () => {
  it('records the arm (trained unless asked), the seed and the sessions in the recipe', async () => {
    const { recipe } = await loadRecipe(embeddedRecipe);
    expect(recipe.arm).toBe('trained');
    const control = applyOverrides(recipe, { arm: 'control', seed: 7, sessions: 3 });
    expect(control).toMatchObject({ arm: 'control', seed: 7, tasks: { sessions: 3 } });
    expect(applyOverrides(recipe, {}).arm).toBe('trained');
  });

  it('refuses a session count the recipe does not have', async () => {
    const { recipe } = await loadRecipe(embeddedRecipe);
    expect(() => applyOverrides(recipe, { sessions: recipe.tasks.sessions + 1 })).toThrow(/--sessions must be 1–/);
  });

  it('sets the served context of a policy an engine serves, and refuses whatever is not a whole number of tokens', async () => {
    const { recipe } = await loadRunRecipe(smollm2Recipe);
    expect(recipe.policy).toMatchObject({ kind: 'vllm', max_model_len: 2048 });
    expect(applyOverrides(recipe, { maxModelLen: 8192 }).policy).toMatchObject({ kind: 'vllm', max_model_len: 8192 });
    expect(recipe.policy).toMatchObject({ max_model_len: 2048 }); // the loaded recipe is left as it was
    for (const bad of [0, -1, 2048.5]) expect(() => applyOverrides(recipe, { maxModelLen: bad }), String(bad)).toThrow(/--max-model-len must be/);
  });

  it("refuses a served context for the embedded policy, whose context is its model's, before writing anything", async () => {
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'gatelab-overrides-')), 'run');
    const refused = createRun(embeddedRecipe, out, { maxModelLen: 8192 });
    await expect(refused).rejects.toBeInstanceOf(RunNotRunnableError);
    await expect(refused).rejects.toThrow(
      /a served context \(--max-model-len\) is for a policy an engine serves \(vllm, sglang\); policy 'embedded' serves its model's own/,
    );
    expect(existsSync(out)).toBe(false);
  });
});
