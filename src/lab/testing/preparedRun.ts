// A run folder in a state a test needs but a short run cannot reach in a few
// minutes: a candidate that passed every probe round and awaits a person's
// confirmation. Built with the real pieces — `createRun`, the run opened in
// gate mode (its real probe engine), and an adapter file staged through the
// real gate (`inject --file`). The adapter's B factors are zero, so its
// replies equal serving's on the same seeds: a candidate that no margin can
// fail, i.e. a no-op update, which is exactly what makes it a safe thing to
// confirm in a test. Used by the contract suite and the web e2e test.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import { loadRecipe, resolveRecipePath } from '../../core/recipe/loadRecipe';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LiveRun } from '../../run/liveRun';
import { createRun, type RunOverrides } from '../../run/createRun';
import { adapterSpec, loraModuleFromPeft } from '../../core/weights/adapterSpec';
import { policyShape, readPolicyConfig } from '../../core/weights/policyConfig';
import { serializeSafetensors, type Float32Tensor } from '../../core/weights/safetensors';
import { recipeOf } from '../runView';

/**
 * Writes a copy of a recipe with some gate settings changed, its relative
 * paths made absolute (it lives in a temp folder). Tests use it to probe
 * fewer problems, and to lift the absolute floors where the weak embedded
 * policy's own replies would fail them (then a candidate identical to serving
 * would be rejected by the floor, whatever a person wants to test).
 */
export async function writeDerivedRecipe(
  baseFile: string,
  dir: string,
  change: { name: string; probeProblems?: number; floors?: { gold_rate: number; answered_rate: number } },
): Promise<string> {
  const loaded = await loadRecipe(baseFile);
  const recipe = structuredClone(loaded.recipe);
  recipe.name = change.name;
  recipe.description = `${recipe.description} (derived for a test: ${JSON.stringify(change)})`;
  recipe.tasks.file = resolveRecipePath(loaded, recipe.tasks.file);
  recipe.tasks.probe_file = resolveRecipePath(loaded, recipe.tasks.probe_file);
  if (recipe.policy.kind === 'embedded' && typeof recipe.policy.model_dir === 'string')
    recipe.policy.model_dir = resolveRecipePath(loaded, recipe.policy.model_dir);
  if (change.probeProblems !== undefined) recipe.gate.probe.problems = change.probeProblems;
  if (change.floors !== undefined) recipe.gate.floors = change.floors;
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${change.name}.yaml`);
  await writeFile(file, stringify(recipe));
  return file;
}

export type PreparedCandidate = { id: string; state: string; reason: string | null };
export type PreparedRun = { runDir: string; candidates: PreparedCandidate[] };

/**
 * Writes a PEFT adapter (A small and deterministic, B zero) for the run's
 * recipe into `dir`; `variant` changes A (so the bytes and the version
 * differ) without changing what the adapter does.
 */
export async function writeNoOpAdapter(run: LiveRun, dir: string, variant = 0): Promise<string> {
  const recipe = run.recipe;
  const shape = policyShape(await readPolicyConfig(path.join(run.modelDir, 'config.json')));
  const lora = recipe.trainer.lora;
  const spec = adapterSpec(shape, { rank: lora.rank, alpha: lora.alpha, targets: lora.target_modules.map(loraModuleFromPeft) });
  const tensors = new Map<string, Float32Tensor>();
  for (const s of spec) {
    const data = new Float32Array(s.shape[0] * s.shape[1]);
    if (s.part === 'A') for (let i = 0; i < data.length; i++) data[i] = (((i + variant) % 7) - 3) * 1e-3;
    tensors.set(s.name, { shape: s.shape, data });
  }
  const file = path.join(dir, `noop-adapter-${variant}.safetensors`);
  await writeFile(file, serializeSafetensors(tensors, { format: 'pt', lora_alpha: String(lora.alpha), r: String(lora.rank) }));
  return file;
}

/**
 * Creates `outDir` as a run of `recipeFile` (no session run) and stages
 * `count` no-op adapters through its gate; resolves when the gate has
 * decided what it can without a person (each awaiting confirmation, unless
 * something failed — the states are returned, the caller checks them).
 */
export async function prepareAwaitingConfirmRun(recipeFile: string, outDir: string, overrides: RunOverrides = {}, count = 1): Promise<PreparedRun> {
  const runDir = await createRun(recipeFile, outDir, { confirm: 'manual', ...overrides });
  const run = await LiveRun.open(runDir, { mode: 'gate' });
  try {
    const scratch = await mkdtemp(path.join(tmpdir(), 'gatelab-noop-'));
    await mkdir(scratch, { recursive: true });
    const ids: string[] = [];
    for (let variant = 0; variant < count; variant++) ids.push((await run.inject({ file: await writeNoOpAdapter(run, scratch, variant) })).id);
    await run.gate.idle();
    recipeOf(run.journal.events); // the journal is whole and readable
    const candidates = ids.map((id) => {
      const record = run.gate.candidate(id);
      const reason = record.state.kind === 'rejected' ? `${record.state.reason.code}: ${record.state.reason.detail}` : null;
      return { id, state: record.state.kind, reason };
    });
    return { runDir, candidates };
  } finally {
    await run.close();
  }
}
