// Each role's GPUs reach its process (issue: devices): the composition root
// places the engines and the trainer from the recipe's device map, and the
// real worker processes start with CUDA_VISIBLE_DEVICES (read back from
// /proc/<pid>/environ, the kernel's record of what the process was given).
// The host is a fake one-GPU host; the embedded backends run on the CPU
// whatever they are given, which is all this needs.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { composeRun } from '../src/run/composeRun';
import { BackendUnavailableError } from '../src/backends/backendUnavailable';
import type { HostGpus } from '../src/processes/devices/hostGpus';
import { loadRecipe, resolveRecipePath } from '../src/core/recipe/loadRecipe';
import type { Recipe } from '../src/core/recipe/recipeSchema';
import { embeddedRecipe } from './helpers/testRecipe';

const oneGpu: HostGpus = { gpus: [{ index: 0, name: 'NVIDIA H200', memoryTotalMiB: 143771, memoryUsedMiB: 0 }], problem: null };

function environOf(pid: number): Record<string, string> {
  const raw = readFileSync(`/proc/${pid}/environ`, 'utf8');
  return Object.fromEntries(
    raw
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
}

describe.skipIf(!existsSync('/proc/self/environ'))('devices reach the processes', () => {
  let root: string | undefined;
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  async function recipeWith(devices: Partial<Recipe['devices']>) {
    const loaded = await loadRecipe(embeddedRecipe);
    return { recipe: { ...loaded.recipe, devices: { ...loaded.recipe.devices, ...devices } }, resolvePath: (p: string) => resolveRecipePath(loaded, p) };
  }

  it('starts the probe engine on GPU 0 and the serving engine on the CPU, each told so', async () => {
    const { recipe, resolvePath } = await recipeWith({ probe: { gpus: [0] } });
    const backends = composeRun(recipe, { resolvePath, host: oneGpu });
    const probe = await backends.policy.startEngine({ role: 'probe', placement: backends.placement('probe') });
    const serving = await backends.policy.startEngine({ role: 'serving', placement: backends.placement('serving') });
    try {
      expect(environOf(probe.pid() as number)).toMatchObject({ CUDA_VISIBLE_DEVICES: '0', CUDA_DEVICE_ORDER: 'PCI_BUS_ID' });
      // On the CPU no GPU is visible at all.
      expect(environOf(serving.pid() as number).CUDA_VISIBLE_DEVICES).toBe('');
    } finally {
      await Promise.all([probe.client.close(), serving.client.close()]);
    }
  }, 120_000);

  it('starts the trainer with its GPUs', async () => {
    root = await mkdtemp(path.join(tmpdir(), 'gatelab-devices-'));
    const { recipe, resolvePath } = await recipeWith({ trainer: { gpus: [0] } });
    const backends = composeRun(recipe, { resolvePath, host: oneGpu });
    const worker = backends.trainer.createWorker({ placement: backends.placement('trainer'), setup: async () => {} });
    try {
      await worker.start();
      expect(environOf(worker.pid as number).CUDA_VISIBLE_DEVICES).toBe('0');
    } finally {
      await worker.shutdown(2000);
    }
  }, 120_000);

  it('refuses a map this host cannot satisfy before anything starts', async () => {
    const { recipe, resolvePath } = await recipeWith({ trainer: { gpus: [1, 2, 3, 4] } });
    expect(() => composeRun(recipe, { resolvePath, host: oneGpu })).toThrow(BackendUnavailableError);
    expect(() => composeRun(recipe, { resolvePath, host: oneGpu })).toThrow('role trainer asks for GPUs 1–4; this host has 1 (GPU 0: NVIDIA H200)');
  });
});
