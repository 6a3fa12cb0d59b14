/**
 * GPU memory as the driver reports it, for the workers panel: `nvidia-smi
 * --query-gpu=index,memory.used,memory.total --format=csv`, run with an
 * argument array (no shell) from PATH. Asked only when a worker is assigned
 * GPUs; a host without nvidia-smi, or one that answers something else, gives
 * a problem in words, never made-up numbers.
 */
import { execFile } from 'node:child_process';

export type GpuMemory = { readonly index: number; readonly usedMiB: number; readonly totalMiB: number };
export type GpuMemoryReading = { readonly gpus: readonly GpuMemory[]; readonly problem: null } | { readonly gpus: readonly []; readonly problem: string };

export const NVIDIA_SMI_ARGS = ['--query-gpu=index,memory.used,memory.total', '--format=csv'] as const;

/** A memory cell: "1234 MiB" (the csv format's unit), or a bare number of MiB. */
function mib(cell: string, what: string, line: number): number {
  const match = /^(\d+(?:\.\d+)?)\s*(MiB)?$/.exec(cell.trim());
  if (!match) throw new Error(`nvidia-smi line ${line}: ${what} "${cell.trim()}" is not a number of MiB`);
  return Number(match[1]);
}

/**
 * Parses nvidia-smi's csv answer: the header `index, memory.used [MiB],
 * memory.total [MiB]`, then one line per GPU (`0, 1234 MiB, 81559 MiB`).
 * Throws, naming the line, on anything else.
 */
export function parseNvidiaSmiCsv(text: string): GpuMemory[] {
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  while (lines.length > 0 && lines.at(-1) === '') lines.pop();
  const header = lines[0]?.split(',').map((c) => c.trim().replace(/\s*\[.*\]$/, ''));
  if (header?.join(',') !== 'index,memory.used,memory.total') {
    throw new Error(`nvidia-smi answered an unexpected header: "${lines[0] ?? ''}"`);
  }
  return lines.slice(1).map((line, i) => {
    const cells = line.split(',');
    if (cells.length !== 3) throw new Error(`nvidia-smi line ${i + 2}: expected 3 fields, found ${cells.length}`);
    const index = Number(cells[0]!.trim());
    if (!Number.isInteger(index) || index < 0) throw new Error(`nvidia-smi line ${i + 2}: index "${cells[0]!.trim()}" is not a GPU index`);
    return { index, usedMiB: mib(cells[1]!, 'memory.used', i + 2), totalMiB: mib(cells[2]!, 'memory.total', i + 2) };
  });
}

/** Runs nvidia-smi (from `env`'s PATH) and reads every GPU's memory. */
export function readGpuMemory(env: NodeJS.ProcessEnv = process.env, timeoutMs = 5000): Promise<GpuMemoryReading> {
  return new Promise((resolve) => {
    execFile('nvidia-smi', [...NVIDIA_SMI_ARGS], { env, timeout: timeoutMs, shell: false, windowsHide: true }, (error, stdout, stderr) => {
      if (error) {
        const code = (error as NodeJS.ErrnoException).code;
        const problem =
          code === 'ENOENT'
            ? 'nvidia-smi is not on PATH: GPU memory cannot be read on this host'
            : `nvidia-smi failed: ${(stderr.trim() || error.message).split('\n')[0]}`;
        resolve({ gpus: [], problem });
        return;
      }
      try {
        resolve({ gpus: parseNvidiaSmiCsv(stdout), problem: null });
      } catch (parseError) {
        resolve({ gpus: [], problem: (parseError as Error).message });
      }
    });
  });
}
