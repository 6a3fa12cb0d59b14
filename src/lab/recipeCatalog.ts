// The recipes the desktop offers: every *.yaml in the recipes folder,
// validated, with whether it can run on this machine and, when not, why (in
// the runnability check's own words). The embedded default comes first and is
// preselected; a recipe that is not runnable is listed, not hidden, so a
// person sees what the Reef seven-GPU layout would need.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { RecipeChoice } from '../contract';
import { RUN_ID_PATTERN } from '../contract';
import { RecipeError } from '../core/recipe/loadRecipe';
import { loadRunRecipe } from '../run/recipeSchemas';
import { takesServedContext } from '../run/createRun';
import { windowTurns } from '../core/recipe/recipeSchema';
import { probeHost, reasonsNotRunnable, type HostFacts } from '../run/runnability';

export const DEFAULT_RECIPE_ID = 'embedded-gsm8k-style.yaml';

const RECIPE_FILE = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}\.ya?ml$/;

/** A recipe id is a file name inside the recipes folder, never a path. */
export function recipePath(recipesDir: string, id: string): string {
  if (!RECIPE_FILE.test(id)) throw new Error(`not a recipe file name: ${JSON.stringify(id)}`);
  return path.join(recipesDir, id);
}

/** A run id is a folder name inside the runs folder, never a path. */
export function runFolderPath(runsDir: string, id: string): string {
  if (!RUN_ID_PATTERN.test(id)) throw new Error(`not a run folder name: ${JSON.stringify(id)}`);
  return path.join(runsDir, id);
}

let hostFacts: HostFacts | undefined;
/** The host does not change while the lab runs: ask nvidia-smi once. */
function host(): HostFacts {
  hostFacts ??= probeHost();
  return hostFacts;
}

export async function listRecipes(recipesDir: string, facts: HostFacts = host()): Promise<RecipeChoice[]> {
  let names: string[];
  try {
    names = (await readdir(recipesDir)).filter((name) => RECIPE_FILE.test(name)).sort();
  } catch (error) {
    throw new Error(`cannot list the recipes in ${recipesDir}: ${(error as Error).message}`, { cause: error });
  }
  const choices: RecipeChoice[] = [];
  for (const id of names) {
    try {
      const { recipe } = await loadRunRecipe(path.join(recipesDir, id));
      const reasons = reasonsNotRunnable(recipe, facts);
      choices.push({
        id,
        name: recipe.name,
        description: recipe.description,
        sessions: recipe.tasks.sessions,
        seed: recipe.seed,
        confirm: recipe.gate.confirm,
        rounds: recipe.gate.rounds,
        batchTurns: recipe.trainer.batch_turns,
        windowTurns: windowTurns(recipe.trainer),
        servedContext: takesServedContext(recipe) ? { tokens: typeof recipe.policy.max_model_len === 'number' ? recipe.policy.max_model_len : null } : null,
        isDefault: id === DEFAULT_RECIPE_ID,
        runnable: reasons.length === 0,
        reasons,
      });
    } catch (error) {
      // A malformed recipe is listed with its problem (file, line, field), not dropped silently.
      const message = error instanceof RecipeError ? error.message : `cannot read: ${(error as Error).message}`;
      choices.push({
        id,
        name: id.replace(/\.ya?ml$/, ''),
        description: 'This recipe file is not valid.',
        sessions: 1,
        seed: 0,
        confirm: 'manual',
        rounds: 1,
        batchTurns: 1,
        windowTurns: 1,
        servedContext: null,
        isDefault: id === DEFAULT_RECIPE_ID,
        runnable: false,
        reasons: [message],
      });
    }
  }
  // The default first, then the runnable ones, then by name.
  return choices.sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || Number(b.runnable) - Number(a.runnable) || a.id.localeCompare(b.id));
}
