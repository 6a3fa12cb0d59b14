/**
 * Where each role of a run executes, from the recipe's device map (docs/design.md, Roles and processes):
 * the environment and priority its process starts with, and whether this
 * host can give it what it asks for. GPUs reach a process only as
 * CUDA_VISIBLE_DEVICES; a role on the CPU sees no GPU at all.
 */
import path from 'node:path';
import type { Recipe, WorkerDevice } from '../../core/recipe/recipeSchema';
import type { WorkerDescriptor } from '../workerRegistry';
import type { HostGpus } from './hostGpus';
import type { WorkerLauncher } from '../workerProcess';
import type { RemoteServerHost } from '../serverProcess';

export type RoleName = keyof Recipe['devices'];

/** What a role's process is started with. */
export type RolePlacement = {
  /** CUDA_VISIBLE_DEVICES (the role's GPU indices, or '' on the CPU) and CUDA_DEVICE_ORDER. */
  env: Readonly<Record<string, string>>;
  /** POSIX nice value, 0 = normal priority (CPU roles may ask for a lower one). */
  nice: number;
  /** The role's GPU indices; empty on the CPU. */
  gpus: readonly number[];
  /**
   * How its process starts when not on this host (recipe `runner: ray`: a Ray
   * job); absent: a local process. Backends pass it to their SupervisedWorker.
   */
  launch?: WorkerLauncher;
  /** With `launch` (a Ray actor): the GPUs the actor reserves on its node, visible there as 0…n−1 (`gpus` is this host's only). */
  remoteGpuCount?: number;
  /**
   * With `launch`, for an engine that is an HTTP server (vLLM): where each of
   * its server processes runs and how the lab reaches it (one host per
   * engine: call once per engine started).
   */
  serverHost?: () => RemoteServerHost;
  /** Where the role's worker appends its whole output, as `<role>.log` (the run folder's workers/). */
  logDir?: string;
};

export function gpusOf(device: WorkerDevice): number[] {
  return typeof device === 'object' && 'gpus' in device ? [...device.gpus] : [];
}

export function niceOf(device: WorkerDevice): number {
  return typeof device === 'object' && 'cpu' in device ? device.cpu.nice : 0;
}

/** OMP_NUM_THREADS for a CPU role that caps its threads; empty otherwise. */
export function threadsEnvOf(device: WorkerDevice): Record<string, string> {
  return typeof device === 'object' && 'cpu' in device && device.cpu.threads !== undefined ? { OMP_NUM_THREADS: String(device.cpu.threads) } : {};
}

export function rolePlacement(device: WorkerDevice): RolePlacement {
  const gpus = gpusOf(device);
  return {
    // nvidia-smi numbers GPUs by PCI bus; CUDA's default order is fastest first. PCI_BUS_ID makes them agree.
    env: { CUDA_VISIBLE_DEVICES: gpus.join(','), CUDA_DEVICE_ORDER: 'PCI_BUS_ID', ...threadsEnvOf(device) },
    nice: niceOf(device),
    gpus,
  };
}

/** How the workers panel lists a role's process: its role, and its GPUs when it has any. */
export function workerDescriptor(role: string, placement: RolePlacement): WorkerDescriptor {
  return {
    role,
    ...(placement.gpus.length > 0 ? { gpus: placement.gpus } : {}),
    ...(placement.logDir !== undefined ? { logFile: path.join(placement.logDir, `${role}.log`) } : {}),
  };
}

/** `1–4`, `0, 2`, `5`: GPU indices as a person reads them. */
export function describeGpuIndices(indices: readonly number[]): string {
  const sorted = [...new Set(indices)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] as number) + 1) j += 1;
    const first = sorted[i] as number;
    const last = sorted[j] as number;
    parts.push(j - i >= 2 ? `${first}–${last}` : j > i ? `${first}, ${last}` : `${first}`);
    i = j + 1;
  }
  return parts.join(', ');
}

/** Every role whose GPUs this host lacks, in words a person can act on; empty when the map fits. */
export function devicePlacementProblems(devices: Partial<Recipe['devices']>, host: HostGpus): string[] {
  const present = new Set(host.gpus.map((g) => g.index));
  const hostHas =
    host.gpus.length === 0
      ? `this host has no GPU${host.problem ? ` (${host.problem})` : ''}`
      : `this host has ${host.gpus.length} (${host.gpus.map((g) => `GPU ${g.index}: ${g.name}`).join('; ')})`;
  const problems: string[] = [];
  for (const [role, device] of Object.entries(devices) as [RoleName, WorkerDevice | undefined][]) {
    if (device === undefined) continue;
    const wanted = gpusOf(device);
    if (wanted.length === 0 || wanted.every((g) => present.has(g))) continue;
    problems.push(`role ${role} asks for GPU${wanted.length > 1 ? 's' : ''} ${describeGpuIndices(wanted)}; ${hostHas}`);
  }
  return problems;
}
