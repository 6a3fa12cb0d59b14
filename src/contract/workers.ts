import { z } from 'zod';
import type { MethodTable } from './define';

/**
 * The workers domain: every worker process the lab supervises — engines,
 * trainers, judges, whatever backend a recipe runs — as the supervisors
 * themselves record them (src/processes/workerRegistry.ts), so the
 * panel shows Python and vLLM processes the same way as the embedded ones.
 * Read-only: a person watches workers here; the supervisor restarts them.
 */

export const WORKER_STATES = ['idle', 'starting', 'running', 'restarting', 'failed', 'stopped'] as const;
export type WorkerStateName = (typeof WORKER_STATES)[number];

/** How the supervisor started the process: a Node child, an Electron utility process, any program (JSON lines). */
export const WORKER_KINDS = ['node', 'utility', 'process'] as const;

const at = z.iso.datetime();
const count = z.int().nonnegative();
const mib = z.number().nonnegative();

export const GpuUse = z.strictObject({
  index: count,
  /** From nvidia-smi; null when it cannot be read (the view's `gpuProblem` says why). */
  memoryUsedMiB: mib.nullable(),
  memoryTotalMiB: mib.nullable(),
});
export type GpuUse = z.infer<typeof GpuUse>;

export const WorkerView = z.strictObject({
  id: z.string().regex(/^w\d+$/),
  /** What it does in the run: serving, probe, trainer, … */
  role: z.string(),
  /** The supervisor's name for the program it runs (engine, trainer, …). */
  name: z.string(),
  kind: z.enum(WORKER_KINDS).nullable(),
  /** Program and script or module only (other arguments may carry secrets). */
  command: z.string().nullable(),
  pid: z.int().positive().nullable(),
  /** The process's nice value as the OS reports it now (CPU priority: 0 normal … 19 lowest). */
  nice: z.int().min(-20).max(19).nullable(),
  /** The GPUs the recipe's device map assigns it, with their memory; null: it runs on the CPU. */
  gpus: z.array(GpuUse).nullable(),
  state: z.enum(WORKER_STATES),
  /** Why it is in this state (a crash the supervisor is recovering from, a failed start). */
  detail: z.string().nullable(),
  restarts: count,
  /** When the current process started (its uptime); null while there is none. */
  startedAt: at.nullable(),
  stateSince: at,
  lastExit: z.strictObject({ at, reason: z.string() }).nullable(),
  /** The newest lines it wrote, oldest first. */
  logTail: z.array(z.strictObject({ at, stream: z.enum(['stdout', 'stderr']), line: z.string() })),
});
export type WorkerView = z.infer<typeof WorkerView>;

export const WorkersView = z.strictObject({
  workers: z.array(WorkerView),
  /** Why GPU memory could not be read (no nvidia-smi, …); null when it was, or no worker has a GPU. */
  gpuProblem: z.string().nullable(),
  at,
});
export type WorkersView = z.infer<typeof WorkersView>;

export const workersMethods = {
  'workers.list': {
    summary: 'Every worker process the lab supervises: role, pid, device (CPU nice, or GPUs with memory), state, restarts, uptime, log tail.',
    params: z.strictObject({}),
    result: WorkersView,
  },
} as const satisfies MethodTable;
