// A new run folder for the desktop's Start and Start live mode: named after
// the recipe, the seed that runs (or "live") and the time, and created from
// the recipe with the person's overrides. Nothing runs yet: the launcher
// (runLaunch.ts) starts its processes.
import path from 'node:path';
import type { ConfirmMode } from '../core/recipe/recipeSchema';
import { createRun, type RunOverrides } from '../run/createRun';
import { loadRunRecipe } from '../run/recipeSchemas';
import { asLabError } from './labErrors';
import { recipePath } from './recipeCatalog';

export type StartParams = { recipe: string; seed?: number | undefined; confirm: ConfirmMode; sessions?: number | undefined };
export type StartLiveParams = { recipe: string; confirm: ConfirmMode; idleSeconds?: number | undefined; maxModelLen?: number | undefined };

/** Creates the folder of a run of the recipe's sessions; answers its path. */
export async function newRunFolder(recipesDir: string, runsDir: string, params: StartParams): Promise<string> {
  const file = recipePath(recipesDir, params.recipe);
  const overrides: RunOverrides = { confirm: params.confirm };
  if (params.seed !== undefined) overrides.seed = params.seed;
  if (params.sessions !== undefined) overrides.sessions = params.sessions;
  const stamp = timeStamp();
  try {
    // The folder names the seed that runs: the one asked for, else the recipe's own.
    const seed = params.seed ?? (await loadRunRecipe(file)).recipe.seed;
    const name = `${recipeStem(params.recipe)}-seed${seed}-${stamp}`;
    return await createRun(file, path.join(runsDir, name), overrides);
  } catch (error) {
    throw asLabError(error);
  }
}

/** Creates the folder of a live-mode run (its sessions are outside clients' conversations); answers its path. */
export async function newLiveRunFolder(recipesDir: string, runsDir: string, params: StartLiveParams): Promise<string> {
  const file = recipePath(recipesDir, params.recipe);
  const stamp = timeStamp();
  try {
    return await createRun(
      file,
      path.join(runsDir, `${recipeStem(params.recipe)}-live-${stamp}`),
      { confirm: params.confirm, ...(params.maxModelLen !== undefined ? { maxModelLen: params.maxModelLen } : {}) },
      { live: true },
    );
  } catch (error) {
    throw asLabError(error);
  }
}

/** The time to the second, as a folder name can hold it. */
function timeStamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
}

function recipeStem(recipe: string): string {
  return recipe.replace(/\.ya?ml$/, '');
}
