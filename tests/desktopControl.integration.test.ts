// A decision from another process while the desktop holds the run. The
// desktop opens a run's gate when a person decides there, and holds its run
// lock while it does; `gatelab confirm` from a terminal then reaches the
// desktop's control endpoint (loopback, token, runs/<id>/control.json), as it
// reaches `gatelab run`, instead of stopping at the lock.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ASSETS_DIR } from '../src/contract/testing/contractSuite';
import { readServingPointer } from '../src/core/journal/servingPointer';
import { createLabCore, type LabCore } from '../src/lab/labCore';
import { prepareAwaitingConfirmRun, writeDerivedRecipe } from '../src/lab/testing/preparedRun';
import { runPaths } from '../src/run/runFolder';
import { gatelab } from './helpers/gatelabProcess';
import { embeddedRecipe } from './helpers/testRecipe';

const http = { transport: 'http' } as const;

describe('gatelab confirm while the desktop holds the run', () => {
  let root: string;
  let runDir: string;
  let core: LabCore;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'gatelab-desktop-control-'));
    // Two candidates awaiting a person, made by the real gate (no floors: a no-op adapter on the weak embedded policy passes).
    const recipe = await writeDerivedRecipe(embeddedRecipe, path.join(root, 'recipes'), {
      name: 'embedded-desktop-control',
      probeProblems: 2,
      floors: { gold_rate: 0, answered_rate: 0 },
    });
    const prepared = await prepareAwaitingConfirmRun(recipe, path.join(root, 'runs', 'held'), { sessions: 2 }, 2);
    expect(prepared.candidates.map((c) => c.state)).toEqual(['awaiting-confirm', 'awaiting-confirm']);
    runDir = prepared.runDir;
    core = createLabCore({ assetsDir: REPO_ASSETS_DIR, version: '0.0.0-test', mode: 'browser', runsDir: path.join(root, 'runs') });
  }, 240_000);

  afterAll(async () => {
    await core?.close();
    await rm(root, { recursive: true, force: true });
  });

  it("reaches the desktop's gate through its control endpoint, and the desktop shows the new version serving", async () => {
    await core.handlers['labRuns.open']({ runId: 'held' }, http);
    // A decision in the desktop opens the run's gate here: from now on this process holds the run lock.
    await core.handlers['labRuns.reject']({ candidate: 'c2', reason: 'not this one' }, http);
    const control = JSON.parse(await readFile(runPaths(runDir).control, 'utf8')) as { pid: number; url: string };
    expect(control.pid).toBe(process.pid);
    expect(new URL(control.url).hostname).toBe('127.0.0.1');

    const confirmed = await gatelab(['confirm', '--run', runDir, '--candidate', 'c1']).done;
    expect(confirmed.stderr).toBe('');
    expect(confirmed.code).toBe(0);

    // The CLI answered after the desktop's gate promoted c1, so both the pointer and the desktop's view say so now.
    const { run } = await core.handlers['labRuns.current']({}, http);
    const c1 = run?.candidates.find((c) => c.id === 'c1');
    expect(c1?.state).toBe('promoted');
    expect(run?.header.serving.version).toBe(c1?.version);
    expect((await readServingPointer(runDir))?.version).toBe(c1?.version);
  }, 240_000);

  it('takes the endpoint down with the gate: once the desktop lets go, the CLI opens the run itself', async () => {
    await core.close();
    await expect(readFile(runPaths(runDir).control, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    const status = await gatelab(['status', '--run', runDir, '--json']).done;
    expect(status.code).toBe(0);
  }, 120_000);
});
