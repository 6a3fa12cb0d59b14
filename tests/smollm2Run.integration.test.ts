// recipes/smollm2-135m-cpu.yaml, shortened for CI: SmolLM2-135M-Instruct served
// and probed by two vLLM servers (separate processes), trained by the torch
// trainer, judged by the rule judge, the scripted student — a few sessions, at
// least one trainer candidate through verify and probing, one injected bad
// candidate rejected, and the serving pointer checked against the journal.
// Checks the run's contract on a real model, not what it learns (bench:recipe).
// Skipped, with every reason, when this build or machine cannot run the recipe
// (no vLLM environment, no model, no torch trainer backend).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { reasonsNotRunnable, thisHost } from '../electron/lab/backends/composeRun';
import type { JournalEvent } from '../electron/lab/journal/journalEvents';
import { readServingPointer } from '../electron/lab/journal/servingPointer';
import { loadRecipe } from '../electron/lab/recipe/loadRecipe';
import { createRun, LiveRun } from '../electron/lab/run/liveRun';
import { repoRoot } from './helpers/testRecipe';

const SESSIONS = 3;
const recipeFile = path.join(repoRoot, 'recipes', 'smollm2-135m-cpu.yaml');
const { recipe: fullRecipe } = await loadRecipe(recipeFile);
const reasons = reasonsNotRunnable(fullRecipe, thisHost());
if (reasons.length > 0) console.warn(`smollm2Run.integration.test.ts skipped: ${reasons.join('; ')}`);

async function shortRecipe(dir: string): Promise<string> {
  const doc = parseDocument(await readFile(recipeFile, 'utf8'));
  doc.setIn(['tasks', 'file'], path.join(repoRoot, 'assets', 'homework', 'easy', 'homework.json'));
  doc.setIn(['tasks', 'probe_file'], path.join(repoRoot, 'assets', 'homework', 'easy', 'probe.json'));
  doc.setIn(['tasks', 'sessions'], SESSIONS);
  doc.setIn(['session', 'max_turns'], 3);
  doc.setIn(['policy', 'sampling', 'max_tokens'], 64);
  doc.setIn(['trainer', 'batch_turns'], 2);
  doc.setIn(['trainer', 'window_turns'], 2);
  doc.setIn(['gate', 'probe', 'problems'], 2);
  doc.setIn(['gate', 'probe', 'sampling', 'max_tokens'], 64);
  doc.setIn(['gate', 'confirm'], 'auto');
  const file = path.join(dir, 'recipe.yaml');
  await writeFile(file, doc.toString());
  return file;
}

describe.skipIf(reasons.length > 0)('a run of the SmolLM2 CPU recipe (shortened, vLLM + torch)', () => {
  let root: string;
  let runDir: string;
  let events: JournalEvent[];
  let injected: { state: { kind: string } } | undefined;
  let pointerBeforeInjection: unknown;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'gatelab-smollm2-run-'));
    runDir = await createRun(await shortRecipe(root), path.join(root, 'run'), {});
    const run = await LiveRun.open(runDir);
    try {
      await run.runSessions();
      await run.gate.idle();
      pointerBeforeInjection = await readServingPointer(runDir);
      const staged = await run.inject({ kind: 'nan-inf' });
      await run.gate.idle();
      injected = run.gate.candidates().find((c) => c.id === staged.id) as typeof injected;
      events = [...run.journal.events];
    } finally {
      await run.close();
    }
  }, 1_800_000);

  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('runs every session on the vLLM serving engine, each reply naming its version', () => {
    expect(events.filter((e) => e.type === 'session-completed')).toHaveLength(SESSIONS);
  });

  it('takes at least one trainer candidate through verify and probing', () => {
    const verified = events.filter((e) => e.type === 'candidate-verified');
    expect(verified.length).toBeGreaterThan(0);
    expect(events.some((e) => e.type === 'probe-round')).toBe(true);
  });

  it('rejects the injected bad candidate and leaves the pointer where it was', async () => {
    expect(injected?.state.kind).toBe('rejected');
    expect(await readServingPointer(runDir)).toEqual(pointerBeforeInjection);
    const promoted = events.flatMap((e) => (e.type === 'candidate-promoted' ? [e.pointer] : []));
    const started = events[0]?.type === 'run-started' ? events[0].baseVersion : undefined;
    expect(await readServingPointer(runDir)).toEqual(promoted.at(-1) ?? started);
  });
});
