// The tasks a recipe brings: the session tasks in file order and the pinned
// probe set, which must be disjoint from them (never probe on what trains).
import { readFile } from 'node:fs/promises';
import { resolveRecipePath, type LoadedRecipe } from '../core/recipe/loadRecipe';
import { loadGsm8k } from '../core/tasks/gsm8k';
import { parseTaskSet, type Task } from '../core/tasks/task';

export type RunTasks = { sessions: Task[]; probe: Task[] };

async function readTaskSet(file: string): Promise<Task[]> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read the task file ${file}: ${(error as Error).message}`, { cause: error });
  }
  return parseTaskSet(raw, file).tasks;
}

export async function loadRunTasks(loaded: Pick<LoadedRecipe, 'recipe' | 'dir'>): Promise<RunTasks> {
  const { tasks, gate } = loaded.recipe;
  const file = resolveRecipePath(loaded, tasks.file);
  const probeFile = resolveRecipePath(loaded, tasks.probe_file);
  const read = tasks.source === 'task-set' ? readTaskSet : async (f: string) => loadGsm8k(f);
  const all = await read(file);
  const probeAll = await read(probeFile);
  if (all.length < tasks.sessions) throw new Error(`${file} has ${all.length} tasks; the recipe asks for ${tasks.sessions} sessions`);
  if (probeAll.length < gate.probe.problems) {
    throw new Error(`${probeFile} has ${probeAll.length} probe tasks; the recipe asks for ${gate.probe.problems}`);
  }
  const sessions = all.slice(0, tasks.sessions);
  const probe = probeAll.slice(0, gate.probe.problems);
  const asked = new Set(sessions.map((t) => t.question));
  const overlap = probe.filter((t) => asked.has(t.question));
  if (overlap.length > 0)
    throw new Error(`the probe set shares ${overlap.length} problem(s) with the session tasks (e.g. ${overlap[0]?.id}); it must be disjoint`);
  return { sessions, probe };
}
