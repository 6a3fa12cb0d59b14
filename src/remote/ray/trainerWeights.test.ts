/**
 * The trainer hooks' moves, with the role's scratch folder as a local folder
 * (a test double of RoleFiles: the object store's part is the Ray
 * integration test's): a step's candidate and checkpoint come into the lab's
 * store checked against their manifests, a restore places them back in a
 * fresh scratch store, and bytes that do not match the manifest store nothing.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { initParamsSchema } from '../../core/protocols/trainerProtocol';
import { sha256Hex, WeightStore } from '../../core/weights/weightStore';
import type { RoleFiles } from './rayRole';
import { trainerWeights } from './trainerWeights';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'gatelab-trainer-weights-'));
  dirs.push(dir);
  return dir;
}

/** A scratch folder on this host standing in for the actor's; `placed` records what a place wrote. */
async function localFiles(): Promise<RoleFiles & { placed: string[] }> {
  const scratch = await tempDir();
  const placed: string[] = [];
  const walk = async (relative: string): Promise<string[]> => {
    const full = path.join(scratch, relative);
    if (!(await stat(full)).isDirectory()) return [relative];
    const names = (await readdir(full)).sort();
    return (await Promise.all(names.map((n) => walk(path.posix.join(relative, n))))).flat();
  };
  return {
    scratch,
    placed,
    async export(paths) {
      const found = (await Promise.all(paths.map((p) => walk(p.replace(/\/$/, ''))))).flat();
      return new Map(await Promise.all(found.map(async (p) => [p, await readFile(path.join(scratch, p))] as const)));
    },
    async place(folder, files) {
      for (const [name, bytes] of files) {
        await mkdir(path.dirname(path.join(scratch, folder, name)), { recursive: true });
        await writeFile(path.join(scratch, folder, name), bytes);
        placed.push(name);
      }
      return path.join(scratch, folder);
    },
  };
}

const base = 'ab'.repeat(32);
const init = (storeDir: string) => ({
  id: 1,
  method: 'init',
  params: initParamsSchema.parse({
    modelDir: '/nonexistent/on/this/node',
    baseSha256: base,
    storeDir,
    lora: { rank: 2, alpha: 4, targets: ['q_proj'] },
    optimizer: { lr: 1e-3 },
    seed: 1,
  }),
});

const report = { step: 1, samples: 1, tokens: 1, loss: 1, pg: 0, opd: 0, kl: 0, klCoef: 0, gradNorm: 1, clipped: false, lr: 1e-3, updateNorm: 1, seconds: 1 };

/** What a trainer on the node writes for a step: a version and its checkpoint in its scratch store. */
async function stepOnNode(files: RoleFiles, blob: Buffer) {
  const remote = new WeightStore(path.join(files.scratch, 'weights'));
  const manifest = {
    kind: 'trainer' as const,
    baseModelSha256: base,
    step: 1,
    loss: 1,
    dataRange: { sessions: ['s0'], turns: 1 },
    lora: { rank: 2, alpha: 4, targets: ['q_proj'] },
  };
  const stored = await remote.put({ blob, adapterConfig: { r: 2 }, manifest: manifest as never });
  const checkpointDir = await remote.putCheckpoint(stored.version, { step: 1, format: 'test/1', files: new Map([['state.bin', Buffer.from('optimizer')]]) });
  return {
    stored,
    result: { report, candidate: { version: stored.version, sha256: stored.sha256, path: stored.path, manifestPath: stored.manifestPath }, checkpointDir },
  };
}

describe("a trainer actor's weights", () => {
  it("come into the lab's store, named by the lab's paths, and go back for a restore", async () => {
    const labDir = path.join(await tempDir(), 'weights');
    const hooks = trainerWeights();
    const files = await localFiles();
    const sent = await hooks.request(init(labDir), files);
    expect((sent.params as { storeDir: string }).storeDir).toBe(path.posix.join(files.scratch, 'weights'));
    const { stored, result } = await stepOnNode(files, Buffer.from('adapter bytes'));
    const answer = (await hooks.result({ id: 2, method: 'step', params: {} }, result, files)) as typeof result;
    const lab = new WeightStore(labDir);
    expect(answer.candidate.path).toBe(lab.blobPath(stored.sha256));
    expect(answer.checkpointDir).toBe(lab.checkpointDir(stored.version));
    expect(sha256Hex(await readFile(answer.candidate.path))).toBe(stored.sha256);
    expect((await lab.getCheckpoint(stored.version))?.files.get('state.bin')?.toString()).toBe('optimizer');

    // A new actor (a new scratch folder): the restore places the version and its checkpoint, the manifest last.
    const fresh = await localFiles();
    const again = trainerWeights();
    await again.request(init(labDir), fresh);
    await again.request({ id: 2, method: 'restore', params: { version: stored.version } }, fresh);
    expect(fresh.placed.at(-1)).toBe(`versions/${stored.version}/manifest.json`);
    expect(fresh.placed).toContain(`checkpoints/${stored.version}/state.bin`);
    expect(await new WeightStore(path.join(fresh.scratch, 'weights')).getCheckpoint(stored.version)).not.toBeNull();
  });

  it('refuse a step whose blob is not what its manifest says, storing nothing', async () => {
    const labDir = path.join(await tempDir(), 'weights');
    const hooks = trainerWeights();
    const files = await localFiles();
    await hooks.request(init(labDir), files);
    const { stored, result } = await stepOnNode(files, Buffer.from('adapter bytes'));
    await writeFile(path.join(files.scratch, 'weights', 'blobs', `${stored.sha256}.safetensors`), 'other bytes');
    await expect(hooks.result({ id: 2, method: 'step', params: {} }, result, files)).rejects.toThrow(/sha256/);
    expect(await new WeightStore(labDir).list()).toEqual([]);
  });
});
