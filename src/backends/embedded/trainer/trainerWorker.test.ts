/**
 * The trainer as a real worker process under the supervisor, speaking the
 * lab's trainer protocol, on the tiny golden model with a tiny tokenizer: a
 * bad batch is answered bad_input and stores nothing; a good batch answers
 * with a candidate whose blob hashes to its name, matches the adapter spec
 * and carries a manifest, and with its checkpoint; a trainer killed after
 * step k and restored takes the step k + 1 an uninterrupted one takes.
 */
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trainerProtocol } from '../../../core/protocols/trainerProtocol';
import type { TrainSample } from '../../../core/protocols/trainSample';
import { adapterSpec, adapterSpecProblems } from '../../../core/weights/adapterSpec';
import { parseSafetensors, serializeSafetensors, toFloat32 } from '../../../core/weights/safetensors';
import { WeightStore } from '../../../core/weights/weightStore';
import { SupervisedWorker } from '../../../processes/supervisedWorker';
import { workerEntry } from '../../../processes/workerEntry';
import { WorkerCallError } from '../../../processes/workerMessages';
import { SPECIAL_TOKENS } from '../engine/tokenizer';
import { GOLDEN_DIR, loadGolden } from './goldenFixture';
import type { TokenSample } from './tokenSample';

const fx = loadGolden();
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const LETTERS = 'abcdefghijklmnop'.split('');

/** A policy directory holding the tiny golden model and a tokenizer of its 23 ids (the specials, then letters). */
async function tinyModelDir(root: string): Promise<{ dir: string; baseSha256: string }> {
  const dir = join(root, 'policy');
  await mkdir(dir, { recursive: true });
  const base = new Map([...fx.base].map(([k, t]) => [k, { shape: t.shape, data: Float32Array.from(t.data) }]));
  const vocab = [...SPECIAL_TOKENS, ...LETTERS];
  expect(vocab).toHaveLength(fx.shape.vocabSize);
  const files: Record<string, Uint8Array> = {
    'config.json': new TextEncoder().encode(JSON.stringify(fx.golden.config)),
    'base.safetensors': serializeSafetensors(base),
    'tokenizer.json': new TextEncoder().encode(JSON.stringify({ version: 1, specials: [...SPECIAL_TOKENS], vocab })),
  };
  for (const [name, bytes] of Object.entries(files)) await writeFile(join(dir, name), bytes);
  await copyFile(join(GOLDEN_DIR, 'grad-tiny-f32.onnx'), join(dir, 'grad.onnx'));
  const manifest = {
    files: Object.fromEntries(
      await Promise.all(['config.json', 'base.safetensors', 'grad.onnx'].map(async (n) => [n, { sha256: sha(await readFile(join(dir, n))) }])),
    ),
  };
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
  return { dir, baseSha256: sha(files['base.safetensors'] as Uint8Array) };
}

/** The golden turns as the lab sends them: a conversation and a hint in text, the golden response ids and log-probs. */
function labSamples(): TrainSample[] {
  return (fx.golden.samples as TokenSample[]).map((s, i) => ({
    sessionId: s.sessionId,
    turn: s.turn,
    messages: [{ role: 'user' as const, content: LETTERS.slice(i, i + 3 + i).join('') }],
    ...(s.hintedPromptIds !== undefined || s.reward === 0 ? { hint: 'mno' } : {}),
    responseIds: s.responseIds,
    logprobs: s.logprobs,
    topIds: s.topIds,
    topLogprobs: s.topLogprobs,
    reward: s.reward,
  }));
}

describe('the trainer worker process', () => {
  let root: string;
  let model: { dir: string; baseSha256: string };
  const workers: Array<SupervisedWorker<typeof trainerProtocol>> = [];
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'gatelab-trainer-worker-'));
    model = await tinyModelDir(root);
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
  const init = (storeDir: string) => ({
    modelDir: model.dir,
    baseSha256: model.baseSha256,
    storeDir,
    lora: { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj', 'down_proj'] as Array<'q_proj' | 'v_proj' | 'down_proj'> },
    optimizer: { lr: 0.01 },
    seed: 3,
    maxTokensPerCall: 64,
  });

  it('refuses bad input without a candidate, then trains and stores a candidate with its checkpoint', async () => {
    const storeDir = join(root, 'weights');
    const worker = start();
    await worker.start();
    const ready = await worker.call('init', init(storeDir));
    expect(ready).toMatchObject({ step: 0, baseSha256: model.baseSha256 });

    const bad = labSamples();
    (bad[1] as { responseIds: number[] }).responseIds = [];
    const refused = await worker.call('step', { samples: bad, lr: 0.01 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(WorkerCallError);
    expect((refused as WorkerCallError).code).toBe('bad_input');
    expect((refused as Error).message).toMatch(/sample 1 .*the response is empty/);
    const store = new WeightStore(storeDir);
    expect(await store.list()).toEqual([]);

    // Samples with a NaN survive JSON only as null: also refused.
    const nanJson = JSON.parse(
      JSON.stringify(labSamples(), (_k, v: unknown) =>
        typeof v === 'object' && v !== null && 'sessionId' in v && (v as TrainSample).sessionId === 'golden-0' ? { ...v, reward: Number.NaN } : v,
      ),
    );
    expect(((await worker.call('step', { samples: nanJson, lr: 0.01 }).catch((e: unknown) => e)) as WorkerCallError).code).toBe('bad_input');

    const { report, candidate, checkpointDir } = await worker.call('step', { samples: labSamples(), lr: 0.01 });
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
    expect(manifest.baseModelSha256).toBe(model.baseSha256);
    expect(JSON.parse(await readFile(store.adapterConfigPath(candidate.version), 'utf8'))).toMatchObject({ peft_type: 'LORA', r: 4, lora_alpha: 8 });
    expect(checkpointDir).toBe(store.checkpointDir(candidate.version));
    expect((await store.getCheckpoint(candidate.version))?.manifest).toMatchObject({
      version: candidate.version,
      step: 1,
      format: 'gatelab-embedded-trainer/1',
    });
  }, 60_000);

  it('takes the prompt ids the engine sent instead of templating the messages', async () => {
    const worker = start();
    await worker.start();
    await worker.call('init', init(join(root, 'weights-prompt-ids')));
    const templated = await worker.call('step', { samples: labSamples(), lr: 0.01 });
    const other = start();
    await other.start();
    await other.call('init', init(join(root, 'weights-prompt-ids-2')));
    // user "abc…" as the template writes it: <|user|> letters <|end|> <|assistant|>.
    const withIds = labSamples().map((s) => ({ ...s, promptIds: [2, ...[...(s.messages[0]?.content ?? '')].map((c) => 7 + LETTERS.indexOf(c)), 4, 3] }));
    const given = await other.call('step', { samples: withIds, lr: 0.01 });
    expect(given.candidate.sha256).toBe(templated.candidate.sha256);
    // Ids the model does not have are refused, naming the sample.
    const outside = labSamples().map((s) => ({ ...s, promptIds: [2, 99, 4, 3] }));
    expect(((await other.call('step', { samples: outside, lr: 0.01 }).catch((e: unknown) => e)) as WorkerCallError).message).toMatch(/outside the vocabulary/);
  }, 60_000);

  it('killed after step k and restored from its checkpoint, takes the step k + 1 an uninterrupted trainer takes', async () => {
    const k = 2;
    const steps = [0.01, 0.008, 0.006];
    const tensorsOf = async (path: string) => {
      const file = parseSafetensors(await readFile(path));
      return new Map([...file.tensors].map(([name, raw]) => [name, toFloat32(name, raw).data]));
    };

    // Uninterrupted: k + 1 steps in one process.
    const whole = start();
    await whole.start();
    await whole.call('init', init(join(root, 'uninterrupted')));
    let expected;
    for (const lr of steps) expected = await whole.call('step', { samples: labSamples(), lr });
    await whole.shutdown(2000);

    // Interrupted: k steps, then the process is killed without a word.
    const storeDir = join(root, 'interrupted');
    const first = start();
    await first.start();
    await first.call('init', init(storeDir));
    let last;
    for (const lr of steps.slice(0, k)) last = await first.call('step', { samples: labSamples(), lr });
    process.kill(first.pid as number, 'SIGKILL');

    const resumed = start();
    await resumed.start();
    await resumed.call('init', init(storeDir));
    expect(await resumed.call('restore', { version: last!.candidate.version })).toEqual({ step: k, restored: 'checkpoint' });
    const next = await resumed.call('step', { samples: labSamples(), lr: steps[k]! });

    expect(next.report.step).toBe(k + 1);
    for (const key of ['loss', 'pg', 'opd', 'kl', 'gradNorm', 'updateNorm'] as const) {
      expect(Math.abs(next.report[key] - expected!.report[key]), key).toBeLessThanOrEqual(1e-6 * Math.max(1, Math.abs(expected!.report[key])));
    }
    const want = await tensorsOf(expected!.candidate.path);
    const got = await tensorsOf(next.candidate.path);
    expect([...got.keys()]).toEqual([...want.keys()]);
    for (const [name, values] of want) {
      const actual = got.get(name)!;
      let worst = 0;
      for (let i = 0; i < values.length; i += 1) worst = Math.max(worst, Math.abs((actual[i] as number) - (values[i] as number)));
      expect(worst, name).toBeLessThanOrEqual(1e-6);
    }

    // Without the checkpoint (a run from before checkpoints) the weights come back but not the moments: another step.
    await rm(new WeightStore(storeDir).checkpointDir(last!.candidate.version), { recursive: true });
    const fresh = start();
    await fresh.start();
    await fresh.call('init', init(join(root, 'interrupted')));
    expect(await fresh.call('restore', { version: last!.candidate.version })).toEqual({ step: k, restored: 'adapter' });
    const withoutMoments = await fresh.call('step', { samples: labSamples(), lr: steps[k]! });
    expect(Math.abs(withoutMoments.report.updateNorm - expected!.report.updateNorm)).toBeGreaterThan(1e-6);
  }, 120_000);
});
