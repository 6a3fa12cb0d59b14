import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RecipeError } from '../core/recipe/loadRecipe';
import { embeddedRecipe, repoRoot } from '../../tests/helpers/testRecipe';
import { checkRecipe, loadRunRecipe, parseRunRecipe } from './recipeSchemas';

const recipesDir = path.join(repoRoot, 'recipes');
const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

function refusal(source: string): RecipeError {
  try {
    parseRunRecipe(source, 'bad.yaml');
  } catch (error) {
    if (error instanceof RecipeError) return error;
    throw error;
  }
  throw new Error('the recipe was accepted');
}

describe("recipes read with the registry's section schemas", () => {
  it('every recipe in recipes/ is valid, each section as its kind says', async () => {
    const files = (await readdir(recipesDir)).filter((name) => /\.ya?ml$/.test(name));
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const file of files) {
      const { recipe } = await loadRunRecipe(path.join(recipesDir, file));
      expect(['embedded', 'vllm', 'sglang']).toContain(recipe.policy.kind);
    }
    const { recipe: smollm2 } = await loadRunRecipe(path.join(recipesDir, 'smollm2-135m-cpu.yaml'));
    expect(smollm2.trainer).toMatchObject({ kind: 'torch', launcher: 'local', gradient_checkpointing: true });
    const { recipe: embedded } = await loadRunRecipe(embeddedRecipe);
    expect(embedded.trainer).toMatchObject({ kind: 'embedded', launcher: 'local' });
  });

  it("refuses a misspelt key of a backend's section at its own line", async () => {
    const source = (await readFile(embeddedRecipe, 'utf8')).replace('model_dir:', 'model_dri:');
    const error = refusal(source);
    expect(error.problems).toContainEqual(expect.objectContaining({ field: 'policy.model_dri', line: lineOf(source, 'model_dri:') }));
    expect(error.problems).toContainEqual(expect.objectContaining({ field: 'policy.model_dir', message: 'missing (expected string)' }));
  });

  it('refuses what another kind takes: the embedded trainer has no gradient checkpointing and only the local launcher', async () => {
    const source = (await readFile(embeddedRecipe, 'utf8')).replace(
      '  batch_turns: 4',
      '  batch_turns: 4\n  gradient_checkpointing: true\n  launcher: torchrun',
    );
    const error = refusal(source);
    expect(error.problems.map((p) => p.field).sort()).toEqual(['trainer.gradient_checkpointing', 'trainer.launcher']);
    expect(error.problems.find((p) => p.field === 'trainer.launcher')?.message).toMatch(
      /one local process; launchers 'torchrun' and 'ray' are for the torch trainer/,
    );
    expect(error.problems.find((p) => p.field === 'trainer.gradient_checkpointing')?.message).toMatch(/a torch trainer option/);
  });

  it('still reads the recipe a run journal of the earlier build holds (every trainer key filled in)', async () => {
    const source = (await readFile(embeddedRecipe, 'utf8')).replace('  batch_turns: 4', '  batch_turns: 4\n  gradient_checkpointing: false\n  launcher: local');
    expect(checkRecipe(parseRunRecipe(source, 'journal.yaml'))).toHaveProperty('recipe');
  });

  it('refuses a kind this build does not have, naming the ones it has', async () => {
    const source = (await readFile(embeddedRecipe, 'utf8')).replace(/^( {2}kind:) scripted/m, '$1 llm-student');
    const error = refusal(source);
    expect(error.problems).toEqual([
      expect.objectContaining({
        field: 'student.kind',
        line: lineOf(source, 'llm-student'),
        message: `unknown kind "llm-student"; this build has 'scripted', 'openai'`,
      }),
    ]);
  });
});
