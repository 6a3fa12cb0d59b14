// recipes/recipe.schema.json is generated from the zod schema — the core's
// recipe with each backend section as the registered kinds' own schemas
// (recipeSchemas.ts) — never edited by hand; a test checks that the
// committed file is current. Run `npm run recipes:schema` after changing
// recipeSchema.ts or a backend's section, or registering a backend.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { runRecipeSchema } from './recipeSchemas';

export const recipeSchemaFile = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../recipes/recipe.schema.json');

export function recipeJsonSchemaText(): string {
  const schema = z.toJSONSchema(runRecipeSchema(), { io: 'input', target: 'draft-2020-12' });
  return JSON.stringify({ title: 'GateLab recipe', ...schema }, null, 2) + '\n';
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await writeFile(recipeSchemaFile, recipeJsonSchemaText());
  console.log(`wrote ${recipeSchemaFile}`);
}
