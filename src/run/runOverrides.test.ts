// The command line's overrides as the journal records them: the control arm is
// part of the run's recipe, so everything that reads the run (the desktop's
// compare table, bench:recipe) knows which arm it was.
import { describe, expect, it } from 'vitest';
import { loadRecipe } from '../core/recipe/loadRecipe';
import { embeddedRecipe } from '../../tests/helpers/testRecipe';
import { applyOverrides } from './createRun';

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
});
