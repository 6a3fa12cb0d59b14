// Reads a recipe file: YAML → plain data → zod. A malformed recipe is refused
// with the file, the line and the field (docs/design.md, invariant 6). `yaml`'s LineCounter
// maps a node's offset to a line; zod's issue path names the node.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isNode, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { recipeSchema, type Recipe, type RecipeSchema } from './recipeSchema';

export type RecipeProblem = { field: string; line: number; column: number; message: string };

export class RecipeError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly RecipeProblem[],
  ) {
    super(`${file}: invalid recipe\n` + problems.map((p) => `  ${file}:${p.line}:${p.column} ${p.field || '(root)'}: ${p.message}`).join('\n'));
    this.name = 'RecipeError';
  }
}

/** A recipe and where it came from; relative paths in it resolve against its folder. */
export type LoadedRecipe = { recipe: Recipe; file: string; dir: string; source: string };

/**
 * `schema`: the recipe schema with the backend sections' own schemas — a
 * recipe that is to run is loaded with src/run/recipeSchemas.ts's. The
 * default checks the backend sections only for what the core reads.
 */
export async function loadRecipe(file: string, schema: RecipeSchema = recipeSchema): Promise<LoadedRecipe> {
  const absolute = path.resolve(file);
  let source: string;
  try {
    source = await readFile(absolute, 'utf8');
  } catch (error) {
    throw new RecipeError(absolute, [{ field: '', line: 0, column: 0, message: `cannot read: ${(error as Error).message}` }]);
  }
  return { recipe: parseRecipe(source, absolute, schema), file: absolute, dir: path.dirname(absolute), source };
}

/** Parses and validates recipe text; `file` is only used in messages (`schema` as for loadRecipe). */
export function parseRecipe(source: string, file: string, schema: RecipeSchema = recipeSchema): Recipe {
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new RecipeError(
      file,
      doc.errors.map((e) => {
        const pos = lineCounter.linePos(e.pos[0]);
        return { field: '', line: pos.line, column: pos.col, message: `YAML: ${e.message.split('\n')[0]}` };
      }),
    );
  }
  const result = schema.safeParse(doc.toJS());
  if (result.success) return result.data;
  throw new RecipeError(
    file,
    result.error.issues.map((issue) => locateIssue(issue, doc, lineCounter)),
  );
}

/** The line of the deepest node on the issue's path that exists (a missing key points at its parent). */
function locateIssue(issue: z.core.$ZodIssue, doc: Document, lineCounter: LineCounter): RecipeProblem {
  const keys = issue.path.map((k) => (typeof k === 'symbol' ? String(k) : k));
  let offset = 0;
  for (let depth = keys.length; depth >= 0; depth--) {
    const node = depth === 0 ? doc.contents : doc.getIn(keys.slice(0, depth), true);
    if (isNode(node) && node.range) {
      offset = node.range[0];
      break;
    }
  }
  // An unknown key has no node of its own in the path: find the key itself.
  if (issue.code === 'unrecognized_keys') {
    const parent = keys.length === 0 ? doc.contents : doc.getIn(keys, true);
    const keyOffset = findKeyOffset(parent, issue.keys[0]);
    if (keyOffset !== undefined) offset = keyOffset;
  }
  const pos = lineCounter.linePos(offset);
  return { ...describeIssue(issue), line: pos.line, column: pos.col };
}

/** The field a zod issue is about (an unknown key named as its own field) and its message in a person's words. */
export function describeIssue(issue: z.core.$ZodIssue): { field: string; message: string } {
  const keys = issue.path.map((k) => (typeof k === 'symbol' ? String(k) : k));
  const field = [...keys, ...(issue.code === 'unrecognized_keys' ? [issue.keys.join(', ')] : [])].join('.');
  // zod says "expected number, received undefined" for a key that is absent.
  const message = issue.message.endsWith('received undefined')
    ? `missing (${issue.message.replace(/^Invalid input: /, '').replace(/, received undefined$/, '')})`
    : issue.message;
  return { field, message };
}

function findKeyOffset(mapNode: unknown, key: string | undefined): number | undefined {
  if (key === undefined || !isNode(mapNode) || !('items' in mapNode) || !Array.isArray(mapNode.items)) return undefined;
  for (const pair of mapNode.items as unknown[]) {
    const k = (pair as { key?: unknown }).key;
    if (isNode(k) && k.range && 'value' in k && k.value === key) return k.range[0];
  }
  return undefined;
}

/** Resolves a path written in a recipe against the recipe's folder. */
export function resolveRecipePath(loaded: Pick<LoadedRecipe, 'dir'>, p: string): string {
  return path.resolve(loaded.dir, p);
}
