// A new run folder: the recipe with the command line's overrides applied,
// checked against this machine and its task files before anything is written,
// then the journal's first event and the serving pointer at the base.
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { RunJournal } from '../core/journal/runJournal';
import { writeServingPointer, type ServingPointer } from '../core/journal/servingPointer';
import { checkRecipe, loadRunRecipe } from './recipeSchemas';
import { recipeSchema, type Arm, type ConfirmMode, type Recipe } from '../core/recipe/recipeSchema';
import { recipeBackends, RunNotRunnableError } from './recipeBackends';
import { lockRun, runPaths } from './runFolder';
import { loadRunTasks } from './runTasks';

/** maxModelLen: the served context (policy.max_model_len), for a policy an engine serves; the engine checks it against the model. */
export type RunOverrides = { seed?: number; confirm?: ConfirmMode; sessions?: number; arm?: Arm; maxModelLen?: number };

/** The recipe with the command line's overrides applied; what the journal records. */
export function applyOverrides(recipe: Recipe, overrides: RunOverrides): Recipe {
  const out = structuredClone(recipe);
  if (overrides.seed !== undefined) out.seed = overrides.seed;
  if (overrides.confirm !== undefined) out.gate.confirm = overrides.confirm;
  if (overrides.arm !== undefined) out.arm = overrides.arm;
  if (overrides.sessions !== undefined) {
    if (!Number.isInteger(overrides.sessions) || overrides.sessions < 1 || overrides.sessions > recipe.tasks.sessions) {
      throw new Error(`--sessions must be 1–${recipe.tasks.sessions}`);
    }
    out.tasks.sessions = overrides.sessions;
  }
  if (overrides.maxModelLen !== undefined) {
    if (!Number.isInteger(overrides.maxModelLen) || overrides.maxModelLen < 1) throw new Error('--max-model-len must be a positive whole number of tokens');
    out.policy = { ...out.policy, max_model_len: overrides.maxModelLen };
  }
  return recipeSchema.parse(out);
}

/**
 * Whether the recipe's policy takes a served context (policy.max_model_len): one an
 * engine serves does (vllm, sglang); the embedded policy serves its model's own.
 */
export function takesServedContext(recipe: Recipe): boolean {
  return !('problems' in checkRecipe(applyOverrides(recipe, { maxModelLen: 1 })));
}

/**
 * Creates a new run folder and its first journal events; returns its path.
 * `live`: a live-mode run (src/run/live/), whose sessions come from outside clients.
 */
export async function createRun(recipeFile: string, outDir: string, overrides: RunOverrides, options: { live?: boolean } = {}): Promise<string> {
  const loaded = await loadRunRecipe(recipeFile);
  const recipe = applyOverrides(loaded.recipe, overrides);
  if (overrides.maxModelLen !== undefined && !takesServedContext(loaded.recipe)) {
    throw new RunNotRunnableError(loaded.file, [
      `a served context (--max-model-len) is for a policy an engine serves (vllm, sglang); policy '${recipe.policy.kind}' serves its model's own`,
    ]);
  }
  const backends = recipeBackends(recipe, loaded);
  await loadRunTasks({ ...loaded, recipe }); // refuse missing or overlapping task files before anything is written
  const runDir = path.resolve(outDir);
  await mkdir(runDir, { recursive: true });
  const release = await lockRun(runDir);
  try {
    const journal = await RunJournal.open(runDir);
    if (journal.events.length > 0) throw new Error(`${runDir} already holds a run; use 'gatelab resume --run ${runDir}'`);
    const baseSha256 = await backends.policy.baseSha256();
    await copyFile(loaded.file, runPaths(runDir).recipe);
    const base: ServingPointer = { version: 'base', sha256: baseSha256 };
    await journal.append({
      type: 'run-started',
      runId: path.basename(runDir),
      recipeFile: loaded.file,
      recipe,
      baseVersion: base,
      ...(options.live === true ? { live: true as const } : {}),
    });
    await writeServingPointer(runDir, base);
    await journal.close();
  } finally {
    await release();
  }
  return runDir;
}
