// A backend from outside src/ — tests/backends/onnx-folder, a policy and a
// trainer kind of its own over real worker processes — registered with one
// line at test time, and a short recipe run to its end through it: the
// recipe names kinds the product does not know, the registry checks their
// sections, the composition root builds the run from them.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEvent } from '../src/core/journal/journalEvents';
import { RecipeError } from '../src/core/recipe/loadRecipe';
import { backendRegistry } from '../src/backends/registry';
import { createRun } from '../src/run/createRun';
import { LiveRun } from '../src/run/liveRun';
import { loadRunRecipe } from '../src/run/recipeSchemas';
import { onnxFolderBackend, onnxFolderUse } from './backends/onnx-folder/onnxFolderBackend';
import { repoRoot, writeTestRecipe } from './helpers/testRecipe';

const SESSIONS = 2;
const policy = {
  kind: 'onnx-folder',
  folder: path.join(repoRoot, 'assets', 'models', 'policy'),
  sampling: { temperature: 0.6, top_p: 0.95, top_k: 20, max_tokens: 32 },
  logprobs_top_k: 4,
};

describe('a backend registered by a test', () => {
  let root: string;
  let unregister: (() => void) | undefined;
  const folderIn = async (name: string) => {
    const dir = path.join(root, name);
    await mkdir(dir, { recursive: true });
    return dir;
  };

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'gatelab-registry-'));
  });

  afterAll(async () => {
    unregister?.();
    await rm(root, { recursive: true, force: true });
  });

  it('is unknown until registered: its recipe is refused naming the kinds this build has', async () => {
    const recipe = await writeTestRecipe(await folderIn('before'), { policy, trainerKind: 'onnx-folder' });
    const refusal = await loadRunRecipe(recipe).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(RecipeError);
    expect((refusal as RecipeError).problems.map((p) => p.field)).toEqual(['policy.kind', 'trainer.kind']);
    expect((refusal as RecipeError).message).toMatch(/unknown kind "onnx-folder"; this build has 'embedded', 'vllm', 'sglang'/);
    // Starting a run reads the recipe the same way: refused, naming the field, before anything starts.
    await expect(createRun(recipe, path.join(root, 'before', 'run'), {})).rejects.toThrow(RecipeError);
  });

  it('once registered, its section is checked by its own schema, field by field', async () => {
    unregister = backendRegistry.register(onnxFolderBackend);
    expect(backendRegistry.kinds('policy')).toContain('onnx-folder');
    expect(() => backendRegistry.register(onnxFolderBackend)).toThrow(/already registered/);
    const { folder, ...rest } = policy;
    const misspelt = await writeTestRecipe(await folderIn('misspelt'), { policy: { ...rest, fodler: folder }, trainerKind: 'onnx-folder' });
    const refusal = await loadRunRecipe(misspelt).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(RecipeError);
    expect((refusal as RecipeError).problems.map((p) => p.field).sort()).toEqual(['policy.fodler', 'policy.folder']);
  });

  it('runs a short recipe to its end through the registered backend', async () => {
    const recipe = await writeTestRecipe(await folderIn('run'), {
      policy,
      trainerKind: 'onnx-folder',
      sessions: SESSIONS,
      maxTurns: 2,
      batchTurns: 2,
      windowTurns: 2,
      probeProblems: 1,
      probeMaxTokens: 32,
      confirm: 'auto',
    });
    expect((await loadRunRecipe(recipe)).recipe.policy).toMatchObject({ kind: 'onnx-folder', folder: policy.folder });
    const runDir = await createRun(recipe, path.join(root, 'run', 'out'), {});
    const run = await LiveRun.open(runDir);
    let events: JournalEvent[];
    try {
      await run.runSessions();
      events = [...run.journal.events];
    } finally {
      await run.close();
    }
    expect(events.filter((e) => e.type === 'session-completed').map((e) => (e.type === 'session-completed' ? e.session : -1))).toEqual([0, 1]);
    expect(events.some((e) => e.type === 'run-completed')).toBe(true);
    // The serving and probe engines and the trainer came from the test's backend.
    expect([...onnxFolderUse.engines].sort()).toEqual(['probe', 'serving']);
    expect(onnxFolderUse.trainerWorkers).toBe(1);
    // Two sessions give at least two judged turns: its trainer stepped, and every candidate it made reached a decision.
    expect(events.filter((e) => e.type === 'trainer-step').length).toBeGreaterThanOrEqual(1);
    const staged = events.flatMap((e) => (e.type === 'candidate-staged' ? [e.id] : []));
    const decided = new Set(
      events.flatMap((e) => (e.type === 'candidate-rejected' || e.type === 'candidate-promoted' || e.type === 'candidate-superseded' ? [e.id] : [])),
    );
    expect(staged.every((id) => decided.has(id))).toBe(true);
  }, 600_000);
});
