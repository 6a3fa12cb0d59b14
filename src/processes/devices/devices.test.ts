// Devices (recipe device map → each role's process): the host's GPUs as
// nvidia-smi reports them — through a fake nvidia-smi on PATH, a real
// program started the way the lab starts the real one — and the refusal of
// a map the host cannot satisfy.
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectHostGpus, parseNvidiaSmiCsv } from './hostGpus';
import { describeGpuIndices, devicePlacementProblems, rolePlacement } from './rolePlacement';

const H200 = 'index, name, memory.total [MiB], memory.used [MiB]\n0, NVIDIA H200, 143771 MiB, 1024 MiB\n';

let dir: string;
/** A fake nvidia-smi that records its arguments and prints `out` (or fails with `code`). */
async function fakeNvidiaSmi(name: string, out: string, code = 0): Promise<NodeJS.ProcessEnv> {
  const bin = path.join(dir, name);
  await rm(bin, { recursive: true, force: true });
  await mkdir(bin, { recursive: true });
  const script = `#!/bin/sh\nprintf '%s\\n' "$@" > "${path.join(bin, 'args')}"\ncat <<'OUT'\n${out}OUT\nexit ${code}\n`;
  await writeFile(path.join(bin, 'nvidia-smi'), script);
  await chmod(path.join(bin, 'nvidia-smi'), 0o755);
  return { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'gatelab-devices-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the host's GPUs", () => {
  it('asks nvidia-smi for index, name and memory as CSV, and reads its answer', async () => {
    const env = await fakeNvidiaSmi('one-gpu', H200);
    expect(detectHostGpus(env)).toEqual({ gpus: [{ index: 0, name: 'NVIDIA H200', memoryTotalMiB: 143771, memoryUsedMiB: 1024 }], problem: null });
    expect((await readFile(path.join(dir, 'one-gpu', 'args'), 'utf8')).trim().split('\n')).toEqual([
      '--query-gpu=index,name,memory.total,memory.used',
      '--format=csv',
    ]);
  });

  it('reads several GPUs, names with commas included', () => {
    const text =
      'index, name, memory.total [MiB], memory.used [MiB]\n0, NVIDIA A100-SXM4-80GB, 81920 MiB, 0 MiB\n1, NVIDIA RTX 6000 Ada, Generation, 49140 MiB, 12 MiB\n';
    expect(parseNvidiaSmiCsv(text).map((g) => [g.index, g.name, g.memoryTotalMiB])).toEqual([
      [0, 'NVIDIA A100-SXM4-80GB', 81920],
      [1, 'NVIDIA RTX 6000 Ada, Generation', 49140],
    ]);
  });

  it('says why there is no GPU: nvidia-smi missing, or failing', async () => {
    const empty = path.join(dir, 'empty');
    await mkdir(empty, { recursive: true });
    expect(detectHostGpus({ ...process.env, PATH: empty })).toEqual({ gpus: [], problem: 'nvidia-smi was not found (no NVIDIA driver)' });
    const failing = await fakeNvidiaSmi('failing', "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n", 9);
    const host = detectHostGpus(failing);
    expect(host.gpus).toEqual([]);
    expect(host.problem).toMatch(/^nvidia-smi exited with 9: NVIDIA-SMI has failed/);
  });
});

describe('placing the roles', () => {
  it('gives each role its GPUs as CUDA_VISIBLE_DEVICES (none on the CPU), numbered as nvidia-smi numbers them', () => {
    expect(rolePlacement({ gpus: [1, 2, 3, 4] })).toEqual({
      env: { CUDA_VISIBLE_DEVICES: '1,2,3,4', CUDA_DEVICE_ORDER: 'PCI_BUS_ID' },
      nice: 0,
      gpus: [1, 2, 3, 4],
    });
    expect(rolePlacement('cpu')).toEqual({ env: { CUDA_VISIBLE_DEVICES: '', CUDA_DEVICE_ORDER: 'PCI_BUS_ID' }, nice: 0, gpus: [] });
    expect(rolePlacement({ cpu: { nice: 10 } }).nice).toBe(10);
    expect(rolePlacement({ cpu: { nice: 10, threads: 1 } }).env).toEqual({ CUDA_VISIBLE_DEVICES: '', CUDA_DEVICE_ORDER: 'PCI_BUS_ID', OMP_NUM_THREADS: '1' });
  });

  it('refuses a map the host cannot satisfy, naming the role, its GPUs and what the host has', async () => {
    const host = detectHostGpus(await fakeNvidiaSmi('refusal', H200));
    const devices = { trainer: { gpus: [1, 2, 3, 4] }, serving: { gpus: [0] }, probe: { gpus: [0, 5] }, prm: 'cpu' as const };
    expect(devicePlacementProblems(devices, host)).toEqual([
      'role trainer asks for GPUs 1–4; this host has 1 (GPU 0: NVIDIA H200)',
      'role probe asks for GPUs 0, 5; this host has 1 (GPU 0: NVIDIA H200)',
    ]);
    expect(devicePlacementProblems({ serving: { gpus: [0] }, trainer: 'cpu' }, host)).toEqual([]);
  });

  it('writes GPU lists as a person reads them', () => {
    expect(describeGpuIndices([4, 1, 2, 3])).toBe('1–4');
    expect(describeGpuIndices([0, 2, 3, 7])).toBe('0, 2, 3, 7');
    expect(describeGpuIndices([5])).toBe('5');
  });
});
