/**
 * The torch trainer through the lab's own seams: the composition root's
 * `torch` case, a supervised `process` worker (the venv's python, an argument
 * array, JSON lines), `init` as the lab builds it, one real optimizer step on
 * SmolLM2-135M-Instruct, and a candidate that the gate's verify accepts.
 * Needs `npm run setup:python` (CI runs it); skipped without it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRecipe } from '../../core/recipe/loadRecipe';
import { rolePlacement } from '../../processes/devices/rolePlacement';
import { findModelFolder, pythonEnvironmentReady } from '../../processes/python/pythonEnvironment';
import { trainerBackend } from '../trainerBackend';
import { trainerInitParams } from '../trainerInitParams';
import { verifyCandidateFile } from '../../core/gate/verifyCandidate';
import { adapterSpec, loraModuleFromPeft } from '../../core/weights/adapterSpec';
import { policyShape, readPolicyConfig } from '../../core/weights/policyConfig';
import { WeightStore } from '../../core/weights/weightStore';
import { torchTrainerArgs } from './torchTrainer';

const recipesDir = fileURLToPath(new URL('../../../recipes/', import.meta.url));
const ready = pythonEnvironmentReady();

describe('torchTrainerArgs', () => {
  const cpu = rolePlacement('cpu');
  it('runs the module alone under launcher local', () => {
    expect(torchTrainerArgs('local', cpu)).toEqual(['-m', 'gatelab_torch', '--dtype', 'auto']);
  });
  it('runs torchrun with one process per GPU of the placement, or the CPU count asked for', () => {
    expect(torchTrainerArgs('torchrun', rolePlacement({ gpus: [1, 2, 3, 4] }))).toEqual([
      '-m',
      'torch.distributed.run',
      '--standalone',
      '--nproc-per-node=4',
      '-m',
      'gatelab_torch',
      '--dtype',
      'auto',
    ]);
    expect(torchTrainerArgs('torchrun', cpu, { cpuProcesses: 3, gradientCheckpointing: true })).toContain('--nproc-per-node=3');
    expect(torchTrainerArgs('torchrun', cpu, { gradientCheckpointing: true })).toContain('--gradient-checkpointing');
  });
});

describe.skipIf(!ready)('the torch trainer behind the trainer protocol (SmolLM2-135M)', () => {
  let dir = '';
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('inits, steps once and writes a candidate the gate verifies', { timeout: 600_000 }, async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'gatelab-torch-'));
    const { recipe: reef } = await loadRecipe(path.join(recipesDir, 'reef-openclawrl-7gpu.yaml'));
    // Reef's trainer (torch, LoRA r16/alpha 32 on the seven modules) as one local CPU process.
    const recipe = { ...reef, trainer: { ...reef.trainer, launcher: 'local' as const }, devices: { ...reef.devices, trainer: 'cpu' as const } };
    const backend = trainerBackend(recipe);
    const modelDir = findModelFolder();
    const storeDir = path.join(dir, 'weights');
    const init = trainerInitParams(recipe, { modelDir, baseSha256: 'e'.repeat(64), storeDir, maxTokensPerCall: backend.maxTokensPerCall ?? 4096 });
    const worker = backend.createWorker({
      placement: rolePlacement('cpu'),
      setup: async (connection) => {
        const result = await connection.call('init', init, { timeoutMs: 300_000 });
        expect(result.step).toBe(0);
      },
    });
    try {
      // SmolLM2's ids: a short reply ending with <|im_end|> (2); reward +1, RL only.
      const responseIds = [504, 3059, 314, 216, 35, 36, 30, 2];
      const sample = {
        sessionId: 'it/session-1',
        turn: 0,
        messages: [{ role: 'user' as const, content: 'What is 12 times 7?' }],
        responseIds,
        logprobs: responseIds.map(() => -1.5),
        topIds: responseIds.map((id) => [id, 9, 10, 11]),
        topLogprobs: responseIds.map(() => [-1.5, -2, -2.5, -3]),
        reward: 1,
      };
      const { report, candidate } = await worker.call('step', { samples: [sample], lr: 1e-4 }, { timeoutMs: 300_000 });
      expect(report.step).toBe(1);
      expect(report.tokens).toBe(responseIds.length);
      expect(Number.isFinite(report.loss)).toBe(true);
      const stored = await new WeightStore(storeDir).get(candidate.version);
      expect(stored.manifest.kind).toBe('trainer');
      expect(stored.manifest.dataRange).toEqual({ sessions: ['it/session-1'], turns: 1 });
      const shape = policyShape(await readPolicyConfig(path.join(modelDir, 'config.json')));
      const lora = { rank: recipe.trainer.lora.rank, alpha: recipe.trainer.lora.alpha, targets: recipe.trainer.lora.target_modules.map(loraModuleFromPeft) };
      const outcome = await verifyCandidateFile(
        stored.path,
        stored.sha256,
        { spec: adapterSpec(shape, lora), lora: { ...lora, targets: recipe.trainer.lora.target_modules }, maxUpdateNorm: recipe.gate.max_update_norm },
        path.join(path.dirname(stored.manifestPath), 'adapter_config.json'),
      );
      expect(outcome).toMatchObject({ ok: true });
      const bad = await worker.call('step', { samples: [{ ...sample, logprobs: [Number.NaN] }], lr: 1e-4 }).catch((error: unknown) => error);
      expect(bad).toMatchObject({ code: 'bad_input' });
    } finally {
      await worker.shutdown();
    }
  });
});
