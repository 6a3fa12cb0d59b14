/**
 * The recipe as this build reads it: the core's recipe schema with each
 * backend section (policy, trainer, student) checked by the registered
 * kinds' own strict schemas (src/backends/registry.ts). Load a recipe that
 * is to run with these, so a misspelt key of a backend's section is refused
 * at its own line like any other; the composition root checks the same
 * before anything starts, whichever way the recipe came.
 */
import { describeIssue, loadRecipe, parseRecipe, type LoadedRecipe } from '../core/recipe/loadRecipe';
import { recipeSchemaWith, type Recipe, type RecipeSchema } from '../core/recipe/recipeSchema';
import { backendRegistry, type BackendRegistry } from '../backends/registry';

export function runRecipeSchema(registry: BackendRegistry = backendRegistry): RecipeSchema {
  return recipeSchemaWith(registry.sectionSchemas());
}

export function loadRunRecipe(file: string, registry: BackendRegistry = backendRegistry): Promise<LoadedRecipe> {
  return loadRecipe(file, runRecipeSchema(registry));
}

export function parseRunRecipe(source: string, file: string, registry: BackendRegistry = backendRegistry): Recipe {
  return parseRecipe(source, file, runRecipeSchema(registry));
}

/**
 * A recipe already read (a run's journal copy, or one loaded with the
 * core's loose sections) checked in full: each problem as `field: message`,
 * none when it holds. The checked recipe comes back with each kind's defaults.
 */
export function checkRecipe(recipe: Recipe, registry: BackendRegistry = backendRegistry): { recipe: Recipe } | { problems: string[] } {
  const result = runRecipeSchema(registry).safeParse(recipe);
  if (result.success) return { recipe: result.data };
  return {
    problems: result.error.issues.map((issue) => {
      const { field, message } = describeIssue(issue);
      return `recipe ${field || '(root)'}: ${message}`;
    }),
  };
}
