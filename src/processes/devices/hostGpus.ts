/**
 * The host's NVIDIA GPUs, as `nvidia-smi` reports them (started with an
 * argument array, no shell). A host without nvidia-smi has no GPUs; one whose
 * nvidia-smi fails says why, so a refusal can name it.
 */
import { spawnSync } from 'node:child_process';

export type GpuInfo = {
  /** nvidia-smi's index: what a recipe's device map and CUDA_VISIBLE_DEVICES name (with CUDA_DEVICE_ORDER=PCI_BUS_ID). */
  index: number;
  name: string;
  memoryTotalMiB: number;
  memoryUsedMiB: number;
};

export type HostGpus = {
  gpus: GpuInfo[];
  /** Why the list is empty when nvidia-smi could not tell (absent, failed, unreadable); null when it answered. */
  problem: string | null;
};

export const NVIDIA_SMI_ARGS = ['--query-gpu=index,name,memory.total,memory.used', '--format=csv'] as const;

/** Parses `nvidia-smi --query-gpu=index,name,memory.total,memory.used --format=csv` (a header line, then `0, NVIDIA H200, 143771 MiB, 0 MiB`). */
export function parseNvidiaSmiCsv(text: string): GpuInfo[] {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const header = lines[0]?.toLowerCase() ?? '';
  if (!header.startsWith('index')) throw new Error(`nvidia-smi printed no CSV header: ${JSON.stringify(lines[0] ?? '')}`);
  const mib = (cell: string | undefined, what: string, line: string): number => {
    const match = /^(\d+(?:\.\d+)?)\s*MiB$/i.exec(cell?.trim() ?? '');
    if (!match) throw new Error(`nvidia-smi: ${what} is not in MiB in ${JSON.stringify(line)}`);
    return Number(match[1]);
  };
  return lines.slice(1).map((line) => {
    const cells = line.split(',').map((c) => c.trim());
    // A GPU name may itself hold commas: index first, the two memory cells last.
    const index = Number(cells[0]);
    if (cells.length < 4 || !Number.isInteger(index) || index < 0) throw new Error(`nvidia-smi: unreadable line ${JSON.stringify(line)}`);
    return {
      index,
      name: cells.slice(1, -2).join(', '),
      memoryTotalMiB: mib(cells.at(-2), 'memory.total', line),
      memoryUsedMiB: mib(cells.at(-1), 'memory.used', line),
    };
  });
}

/** Asks nvidia-smi (found on PATH) for the host's GPUs. */
export function detectHostGpus(env: NodeJS.ProcessEnv = process.env): HostGpus {
  const out = spawnSync('nvidia-smi', [...NVIDIA_SMI_ARGS], { encoding: 'utf8', timeout: 10_000, env });
  if (out.error) {
    const code = (out.error as NodeJS.ErrnoException).code;
    return { gpus: [], problem: code === 'ENOENT' ? 'nvidia-smi was not found (no NVIDIA driver)' : `nvidia-smi failed: ${out.error.message}` };
  }
  if (out.status !== 0) return { gpus: [], problem: `nvidia-smi exited with ${out.status ?? out.signal}: ${(out.stderr || out.stdout).trim().slice(0, 200)}` };
  try {
    return { gpus: parseNvidiaSmiCsv(out.stdout), problem: null };
  } catch (error) {
    return { gpus: [], problem: (error as Error).message };
  }
}
