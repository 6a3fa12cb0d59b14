/**
 * The trainer as a real worker process under the supervisor, on the tiny
 * golden model: a bad batch is answered bad_input and stores nothing; a good
 * batch answers with a candidate whose blob hashes to its name, matches the
 * adapter spec and carries a manifest; a restarted worker resumes from it.
 */
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapterSpec, adapterSpecProblems } from '../../../lab/weights/adapterSpec';
import { parseSafetensors, serializeSafetensors } from '../../../lab/weights/safetensors';
import { WeightStore } from '../../../lab/weights/weightStore';
import { SupervisedWorker } from '../../../lab/workers/supervisedWorker';
import { workerEntry } from '../../../lab/workers/workerEntry';
import { WorkerCallError } from '../../../lab/workers/workerMessages';
import { GOLDEN_DIR, loadGolden } from './goldenFixture';
import { trainerProtocol } from './trainerProtocol';

const fx = loadGolden();
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** A policy directory holding the tiny golden model, as H3a's build lays one out. */
async function tinyModelDir(root: string): Promise<string> {
  const dir = join(root, 'policy');
  await mkdir(dir, { recursive: true });
  const base = new Map([...fx.base].map(([k, t]) => [k, { shape: t.shape, data: Float32Array.from(t.data) }]));
  const files: Record<string, Uint8Array> = {
    'config.json': new TextEncoder().encode(JSON.stringify(fx.golden.config)),
    'base.safetensors': serializeSafetensors(base),
  };
  for (const [name, bytes] of Object.entries(files)) await writeFile(join(dir, name), bytes);
  await copyFile(join(GOLDEN_DIR, 'grad-tiny-f32.onnx'), join(dir, 'grad.onnx'));
  const manifest = { files: Object.fromEntries(await Promise.all(['config.json', 'base.safetensors', 'grad.onnx'].map(async (n) => [n, { sha256: sha(await readFile(join(dir, n))) }]))) };
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
  return dir;
}

describe('the trainer worker process', () => {
  let root: string;
  let modelDir: string;
  const workers: Array<SupervisedWorker<typeof trainerProtocol>> = [];
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'gatelab-trainer-worker-'));
    modelDir = await tinyModelDir(root);
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.shutdown(2000)));
    await rm(root, { recursive: true, force: true });
  });

  const start = () => {
    const worker = new SupervisedWorker({ name: 'trainer', protocol: trainerProtocol, entry: () => workerEntry('trainer'), maxRestarts: 0 });
    workers.push(worker);
    return worker;
  };
  const init = { modelDir: '', storeDir: '', lora: { rank: 4, alpha: 8, targets: ['q', 'v', 'down'] as Array<'q' | 'v' | 'down'> }, optimizer: { lr: 0.01 }, seed: 3 };

  it('refuses bad input without a candidate, then trains and stores one; a new process resumes from it', async () => {
    const storeDir = join(root, 'weights');
    const worker = start();
    await worker.start();
    const ready = await worker.call('init', { ...init, modelDir, storeDir });
    expect(ready.step).toBe(0);

    const bad = structuredClone(fx.golden.samples) as Array<{ responseIds: number[] }>;
    (bad[1] as { responseIds: number[] }).responseIds = [];
    const refused = await worker.call('step', { samples: bad }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(WorkerCallError);
    expect((refused as WorkerCallError).code).toBe('bad_input');
    expect((refused as Error).message).toMatch(/sample 1 .*the response is empty/);
    const store = new WeightStore(storeDir);
    expect(await store.list()).toEqual([]);

    // Samples with a NaN survive JSON only as null: also refused.
    const nanJson = JSON.parse(JSON.stringify(fx.golden.samples, (_k, v: unknown) => (v === fx.golden.samples[0] ? { ...(v as object), reward: Number.NaN } : v)));
    expect(((await worker.call('step', { samples: nanJson }).catch((e: unknown) => e)) as WorkerCallError).code).toBe('bad_input');

    const { report, candidate } = await worker.call('step', { samples: fx.golden.samples });
    expect(report.step).toBe(1);
    expect(report.klCoef).toBe(0);
    expect(Number.isFinite(report.loss)).toBe(true);
    const blob = await readFile(candidate.path);
    expect(sha(blob)).toBe(candidate.sha256);
    expect(candidate.version).toBe(`v1-${candidate.sha256.slice(0, 8)}`);
    const file = parseSafetensors(blob);
    expect(adapterSpecProblems(file, adapterSpec(fx.shape, { rank: 4, alpha: 8, targets: ['q', 'v', 'down'] }))).toEqual([]);
    expect(file.metadata).toMatchObject({ lora_alpha: '8', r: '4' });
    const manifest = (await store.get(candidate.version)).manifest;
    expect(manifest).toMatchObject({ kind: 'trainer', step: 1, dataRange: { sessions: ['golden-0', 'golden-1', 'golden-2'], turns: 3 } });
    expect(manifest.baseModelSha256).toBe(ready.baseSha256);
    expect(JSON.parse(await readFile(join(store.versionDir(candidate.version), 'adapter_config.json'), 'utf8'))).toMatchObject({ peft_type: 'LORA', r: 4, lora_alpha: 8 });
    await worker.shutdown(2000);

    const again = start();
    await again.start();
    expect((await again.call('init', { ...init, modelDir, storeDir, resumeFrom: candidate.version })).step).toBe(1);
    const next = await again.call('step', { samples: fx.golden.samples });
    expect(next.report.step).toBe(2);
    expect(await store.list()).toEqual([candidate.version, next.candidate.version]);
  }, 60_000);
});
