// The lab's workers and the lab's own life, on real processes with the
// embedded recipe: a Ctrl-C at the terminal (SIGINT to the lab's process
// group) reaches the lab alone — its workers run in their own groups, so the
// probe in flight completes and the run stops after the session in progress;
// and a lab killed with SIGKILL or SIGTERM mid-run leaves no process behind,
// after which `gatelab resume` finishes the run with every session once.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { reasonsNotRunnable, thisHost } from '../src/run/composeRun';
import type { JournalEvent } from '../src/core/journal/journalEvents';
import { loadRecipe } from '../src/core/recipe/loadRecipe';
import { descendantsOf, describeProcess, journalOf, startLab, waitForJournal, waitUntilGone } from './helpers/labProcess';
import { shortenSmolRecipe } from './helpers/shortSmolRecipe';
import { repoRoot, writeTestRecipe } from './helpers/testRecipe';

// The SmolLM2 recipe (two vLLM servers and the torch trainer) where this machine can run it.
const smolRecipeFile = path.join(repoRoot, 'recipes', 'smollm2-135m-cpu.yaml');
const smolReasons = reasonsNotRunnable((await loadRecipe(smolRecipeFile)).recipe, thisHost());
if (smolReasons.length > 0) console.warn(`labLifetime.integration.test.ts: the SmolLM2 case is skipped: ${smolReasons.join('; ')}`);

/** The SmolLM2 recipe shortened for CI (helpers/shortSmolRecipe.ts), to two sessions. */
async function shortSmolRecipe(dir: string): Promise<string> {
  const doc = parseDocument(await readFile(smolRecipeFile, 'utf8'));
  shortenSmolRecipe(doc, 2);
  const file = path.join(dir, 'recipe.yaml');
  await writeFile(file, doc.toString());
  return file;
}

/**
 * Starts `gatelab run`, kills the lab with `signal` once its first session is
 * done, waits until every process it had started on this host is gone, then
 * finishes the run with `gatelab resume` and checks each session is in the
 * journal once.
 */
async function killMidRunThenResume(recipe: string, runDir: string, signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
  const lab = startLab(['run', '--recipe', recipe, '--out', runDir]);
  await waitForJournal(runDir, lab, (events) => sessionsOf(events).length >= 1, 'first completed session', 30 * 60_000);
  // Everything the lab started on this host: its workers, their helpers, the group watcher.
  const started = descendantsOf(lab.pid);
  expect(started.length, started.map(describeProcess).join('\n')).toBeGreaterThanOrEqual(3);

  process.kill(lab.pid, signal);
  await lab.exited;
  await waitUntilGone(started, 120_000);

  const resumed = startLab(['resume', '--run', runDir]);
  const exit = await resumed.exited;
  expect(exit, resumed.output()).toEqual({ code: 0, signal: null });
  const events = await journalOf(runDir);
  expect(sessionsOf(events).sort()).toEqual([0, 1]);
  expect(events.filter((e) => e.type === 'run-completed')).toHaveLength(1);
}

const sessionsOf = (events: readonly JournalEvent[]) => events.flatMap((e) => (e.type === 'session-completed' ? [e.session] : []));

/** The exits the workers' supervisors saw (written to each worker's log file in the run folder). */
async function workerExits(runDir: string): Promise<string[]> {
  const dir = path.join(runDir, 'workers');
  const files = (await readdir(dir)).filter((f) => f.endsWith('.log'));
  expect(files.length).toBeGreaterThanOrEqual(3); // probe, serving, trainer
  const exits: string[] = [];
  for (const file of files) {
    for (const line of (await readFile(path.join(dir, file), 'utf8')).split('\n')) {
      if (/^--- \S+ \S+: (worker .* (killed by|exited with)|.* exited \()/.test(line)) exits.push(`${file}: ${line}`);
    }
  }
  return exits;
}

describe('the lab and its workers (embedded recipe, real processes)', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'gatelab-lab-lifetime-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it(
    'a Ctrl-C reaches the lab alone: the probe in flight completes, no worker is signalled, the run stops after the session in progress',
    { timeout: 15 * 60_000 },
    async () => {
      const dir = path.join(root, 'ctrl-c');
      const recipe = await writeTestRecipe(await mkdtemp(`${dir}-recipe-`), {
        sessions: 8,
        maxTurns: 3,
        maxTokens: 32,
        batchTurns: 2,
        probeProblems: 4,
        probeMaxTokens: 48,
        confirm: 'manual',
      });
      const runDir = path.join(dir, 'run');
      const lab = startLab(['run', '--recipe', recipe, '--out', runDir]);
      // A probe round in flight: journaled as started, not yet as done.
      const atSignal = await waitForJournal(
        runDir,
        lab,
        (events) => events.some((e) => e.type === 'candidate-probing' && !events.some((r) => r.type === 'probe-round' && r.id === e.id && r.round === e.round)),
        'probe round in flight',
        10 * 60_000,
      );
      const probing = [...atSignal].reverse().find((e) => e.type === 'candidate-probing');
      if (probing?.type !== 'candidate-probing') throw new Error('no probe round');

      // What a terminal's Ctrl-C does: SIGINT to every process of the lab's foreground group.
      process.kill(-lab.pid, 'SIGINT');
      const exit = await lab.exited;
      expect(exit, lab.output()).toEqual({ code: 0, signal: null });
      expect(lab.output()).toContain('stopping after the session in progress');
      expect(lab.output()).toContain('run stopped');

      const events = await journalOf(runDir);
      // The round in flight was answered by the probe engine, not cut off.
      expect(
        events.some((e) => e.type === 'probe-round' && e.id === probing.id && e.round === probing.round),
        lab.output(),
      ).toBe(true);
      expect(events.filter((e) => e.type === 'candidate-rejected' && e.reason.code === 'probe-error')).toEqual([]);
      expect(events.some((e) => e.type === 'run-failed' || e.type === 'run-completed')).toBe(false);
      // Stopped after the session in progress: at most one more session than at the signal, none twice.
      const done = sessionsOf(events);
      expect(done.length).toBeLessThanOrEqual(sessionsOf(atSignal).length + 1);
      expect(done.length).toBeLessThan(8);
      expect(new Set(done).size).toBe(done.length);
      // No worker saw a signal or any exit but the lab's own shutdown.
      expect(await workerExits(runDir)).toEqual([]);
    },
  );

  for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
    it(
      `a lab ${signal === 'SIGKILL' ? 'killed with SIGKILL' : 'sent SIGTERM'} mid-run leaves no process behind; \`gatelab resume\` finishes the run with each session once`,
      { timeout: 15 * 60_000 },
      async () => {
        const dir = path.join(root, signal);
        const recipe = await writeTestRecipe(await mkdtemp(`${dir}-recipe-`), {
          sessions: 2,
          maxTurns: 3,
          maxTokens: 32,
          batchTurns: 4,
          probeProblems: 2,
          probeMaxTokens: 32,
          confirm: 'auto',
        });
        await killMidRunThenResume(recipe, path.join(dir, 'run'), signal);
      },
    );
  }

  it.skipIf(smolReasons.length > 0)(
    'the SmolLM2 recipe (vLLM servers, torch trainer) killed with SIGKILL after its first session leaves no process behind; resume finishes it',
    { timeout: 60 * 60_000 },
    async () => {
      const dir = path.join(root, 'smollm2');
      const recipe = await shortSmolRecipe(await mkdtemp(`${dir}-recipe-`));
      await killMidRunThenResume(recipe, path.join(dir, 'run'), 'SIGKILL');
    },
  );
});
