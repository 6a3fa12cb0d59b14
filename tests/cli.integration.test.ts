// The `gatelab` commands as a person uses them: real processes, a real run.
// A manual-confirm run waits for a person while sessions go on; `gatelab
// confirm` from another process reaches it through its control endpoint and
// the run serves the new version; `inject`, `status --json`, `rollback`,
// `export` and malformed input behave as documented.
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SMOLLM2_135M_CONFIG } from '../src/core/weights/testing/smollm2Config';
import { readServingPointer } from '../src/core/journal/servingPointer';
import { readRunStatus } from '../src/run/runStatus';
import { gatelab } from './helpers/gatelabProcess';
import { repoRoot, writeTestRecipe } from './helpers/testRecipe';

const statusJson = z.object({
  serving: z.object({ version: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
  candidates: z.array(z.object({ id: z.string(), state: z.string(), reason: z.string().nullable() })),
});

describe('gatelab CLI', () => {
  let root: string;
  let runDir: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'gatelab-cli-'));
    runDir = path.join(root, 'run');
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('refuses a malformed recipe naming file, line and field', async () => {
    const bad = path.join(root, 'bad.yaml');
    await writeFile(bad, (await readFile(await writeTestRecipe(root), 'utf8')).replace('rounds: 3', 'rounds: three'));
    const { code, stderr } = await gatelab(['run', '--recipe', bad, '--out', path.join(root, 'never')]).done;
    expect(code).toBe(1);
    expect(stderr).toMatch(/bad\.yaml:\d+:\d+ gate\.rounds: /);
  }, 60_000);

  it("live --max-model-len refuses a context over the model's own, naming both numbers, before writing anything", async () => {
    // A model folder of SmolLM2-135M's shape (8,192 positions): the refusal reads only its config.json.
    const model = path.join(root, 'smollm2-shape');
    await mkdir(model);
    await writeFile(path.join(model, 'config.json'), JSON.stringify(SMOLLM2_135M_CONFIG));
    const recipe = path.join(repoRoot, 'recipes', 'smollm2-135m-cpu.yaml');
    const copy = path.join(root, 'smollm2-live.yaml');
    await writeFile(copy, (await readFile(recipe, 'utf8')).replace(/^ {2}model: .*$/m, `  model: ${JSON.stringify(model)}`));
    const out = path.join(root, 'never-live');
    const { code, stderr } = await gatelab(['live', '--recipe', copy, '--out', out, '--max-model-len', '16384']).done;
    expect(code).toBe(1);
    expect(stderr).toContain(
      `max_model_len 16384 is more than the model's own context of 8192 tokens (max_position_embeddings in ${path.join(model, 'config.json')}); give at most 8192`,
    );
    await expect(readdir(out)).rejects.toMatchObject({ code: 'ENOENT' });
  }, 60_000);

  it('runs with manual confirmation; a person confirms from another process and serving changes', async () => {
    // All 72 sessions, so the run is still going when the person confirms (it is stopped below).
    const recipe = await writeTestRecipe(root, {
      sessions: 72,
      maxTurns: 3,
      maxTokens: 32,
      batchTurns: 16,
      probeProblems: 2,
      probeMaxTokens: 32,
      confirm: 'manual',
      floors: { gold_rate: 0, answered_rate: 0 },
      margins: { pass_rate: 1, gold_rate: 1, answered_rate: 1, mean_violations: 100 },
    });
    const run = gatelab(['run', '--recipe', recipe, '--out', runDir]);
    // Wait for a candidate to pass its rounds and wait for a person, then confirm it. A candidate
    // awaiting a person is never superseded (the waiting-candidate rule), so the first confirmation
    // cannot race with a newer candidate.
    let confirm: { code: number | null; stdout: string; stderr: string } | undefined;
    for (let i = 0; i < 600 && confirm === undefined; i++) {
      await new Promise((r) => setTimeout(r, 500));
      const status = await readRunStatus(runDir).catch(() => undefined);
      const waiting = status?.candidates.find((c) => c.state === 'awaiting-confirm')?.id;
      if (!waiting) continue;
      expect((await readServingPointer(runDir))?.version).toBe('base');
      confirm = await gatelab(['confirm', '--run', runDir, '--candidate', waiting]).done;
    }
    expect(confirm?.code, confirm?.stderr).toBe(0);
    expect(confirm!.stdout).toMatch(/serving: base → v\d+-[0-9a-f]{8}/);
    const pointer = await readServingPointer(runDir);
    expect(pointer?.version).not.toBe('base');

    // The live run serves the confirmed version from the next request on: wait for a session
    // whose first (scored) reply it served — a session already under way when the swap landed
    // may have only its later turns on it.
    for (let i = 0; i < 600; i++) {
      const { events } = {
        events: (await readFile(path.join(runDir, 'journal.jsonl'), 'utf8'))
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { type: string; versions?: string[] }),
      };
      if (events.some((e) => e.type === 'session-completed' && e.versions?.[0] === pointer!.version)) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    // Stop it (SIGINT): it finishes the session in progress and exits cleanly, resumable.
    run.child.kill('SIGINT');
    const stopped = await run.done;
    expect(stopped.code, stopped.stderr).toBe(0);
    const journal = await readFile(path.join(runDir, 'journal.jsonl'), 'utf8');
    expect(journal).toContain(`"versions":["${pointer!.version}"`);
  }, 900_000);

  it('status --json names the pointer and every candidate with its state and reason', async () => {
    const { code, stdout } = await gatelab(['status', '--run', runDir, '--json']).done;
    expect(code).toBe(0);
    const status = statusJson.parse(JSON.parse(stdout));
    expect(status.serving).toEqual(await readServingPointer(runDir));
    expect(status.candidates.some((c) => c.state === 'promoted')).toBe(true);
  }, 60_000);

  it('inject on a stopped run: the bad candidate is rejected and the pointer stays', async () => {
    const before = await readServingPointer(runDir);
    const { code, stdout, stderr } = await gatelab(['inject', '--run', runDir, '--kind', 'nan-inf']).done;
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/rejected — non-finite/);
    expect(stdout).toContain(`serving pointer: before ${before!.version}, after ${before!.version}`);
    expect(await readServingPointer(runDir)).toEqual(before);
  }, 300_000);

  it('inject --file stages an external adapter through the same gate (bytes that do not match their manifest are refused)', async () => {
    const folder = path.join(root, 'external');
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, 'adapter_model.safetensors'), Buffer.from('definitely not the bytes the manifest hashed'));
    await writeFile(path.join(folder, 'manifest.json'), JSON.stringify({ blobSha256: 'a'.repeat(64), step: 7 }));
    const { code, stdout } = await gatelab(['inject', '--run', runDir, '--file', folder]).done;
    expect(code).toBe(0);
    expect(stdout).toMatch(/v7-aaaaaaaa \(file .*\): rejected — hash-mismatch/);
  }, 300_000);

  it('refuses a rollback to a version that never served and a confirmation of an unknown candidate', async () => {
    const rollback = await gatelab(['rollback', '--run', runDir, '--version', 'v9-deadbeef']).done;
    expect(rollback.code).toBe(1);
    expect(rollback.stderr).toMatch(/only versions that served/);
    const confirm = await gatelab(['confirm', '--run', runDir, '--candidate', 'c999']).done;
    expect(confirm.code).toBe(1);
    expect(confirm.stderr).toMatch(/no candidate c999/);
  }, 300_000);

  it('exports the serving version as a PEFT adapter folder with the run’s reports', async () => {
    const out = path.join(root, 'export');
    const { code, stderr } = await gatelab(['export', '--run', runDir, '--out', out]).done;
    expect(code, stderr).toBe(0);
    const pointer = (await readServingPointer(runDir))!;
    expect((await readdir(out)).sort()).toEqual(['curve.csv', 'gate.csv', 'journal.jsonl', 'summary.json', pointer.version].sort());
    expect((await readdir(path.join(out, pointer.version))).sort()).toEqual(['adapter_config.json', 'adapter_model.safetensors', 'manifest.json']);
  }, 120_000);
});
