// A run's parts as its recipe chooses them, through the composition root; a
// recipe that cannot run on this machine is refused with every reason at once.
import path from 'node:path';
import { resolveRecipePath, type LoadedRecipe } from '../core/recipe/loadRecipe';
import type { Recipe } from '../core/recipe/recipeSchema';
import { BackendUnavailableError, composeRun, thisHost, type RunBackends } from './composeRun';

export class RunNotRunnableError extends Error {
  constructor(
    readonly recipeFile: string,
    readonly reasons: readonly string[],
  ) {
    super(`${recipeFile} cannot run on this machine:\n${reasons.map((r) => `  - ${r}`).join('\n')}`);
    this.name = 'RunNotRunnableError';
  }
}

/** The recipe's backends; with `runDir`, each worker's whole output goes to the run folder's workers/<role>.log. */
export function recipeBackends(recipe: Recipe, loaded: Pick<LoadedRecipe, 'dir' | 'file'>, runDir?: string): RunBackends {
  try {
    const logs = runDir === undefined ? {} : { workerLogDir: path.join(runDir, 'workers') };
    return composeRun(recipe, { resolvePath: (p) => resolveRecipePath(loaded, p), host: thisHost(), ...logs });
  } catch (error) {
    if (error instanceof BackendUnavailableError) throw new RunNotRunnableError(loaded.file, error.reasons);
    throw error;
  }
}
