// The workers panel's data: the worker registry (what the supervisors
// record) turned into the contract's WorkersView, with GPU memory read from
// nvidia-smi for the GPUs the workers are assigned. Changes go out as one
// `workers.changed` event per burst (a crash and its restart, a run of log
// lines), never one per line. A worker's crash and its restart also go to
// the lab log, with the last lines it wrote to stderr.
import type { WorkersView, WorkerView } from '../contract';
import { readGpuMemory, type GpuMemoryReading } from '../processes/gpuMemory';
import { lifecycleLogLine } from '../processes/lifecycleLogLine';
import type { WorkerRegistry, WorkerSnapshot } from '../processes/workerRegistry';
import type { LabEventBus } from './eventBus';

/** Lines of each stream of a worker's log sent to the panel (the registry keeps more). */
export const LOG_TAIL_LINES = 40;

export type WorkersFeedOptions = {
  registry: WorkerRegistry;
  events: LabEventBus;
  /** How GPU memory is read (tests pass a fake nvidia-smi through PATH instead of replacing this). */
  readGpu?: () => Promise<GpuMemoryReading>;
  /** How long changes are gathered before one event goes out (ms). */
  batchMs?: number;
  /** How often GPU memory is read again while a worker holds a GPU (ms). */
  gpuEveryMs?: number;
};

export interface WorkersFeed {
  view(): Promise<WorkersView>;
  close(): void;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function workerView(w: WorkerSnapshot, gpu: GpuMemoryReading | null): WorkerView {
  return {
    id: w.id,
    role: w.role,
    name: w.name,
    kind: w.kind,
    command: w.command,
    pid: w.pid,
    nice: w.nice,
    gpus:
      w.gpus === null
        ? null
        : w.gpus.map((index) => {
            const memory = gpu?.gpus.find((g) => g.index === index);
            return { index, memoryUsedMiB: memory?.usedMiB ?? null, memoryTotalMiB: memory?.totalMiB ?? null };
          }),
    state: w.state,
    detail: w.detail,
    restarts: w.restarts,
    startedAt: w.startedAt === null ? null : iso(w.startedAt),
    stateSince: iso(w.stateSince),
    lastExit: w.lastExit === null ? null : { at: iso(w.lastExit.at), reason: w.lastExit.reason },
    logTail: tailOfEachStream(w.log).map((l) => ({ at: iso(l.at), stream: l.stream, line: l.line })),
  };
}

/** The newest LOG_TAIL_LINES of stdout and of stderr, still in the order they were written. */
function tailOfEachStream(log: WorkerSnapshot['log']): WorkerSnapshot['log'] {
  let out = 0;
  let err = 0;
  const kept: WorkerSnapshot['log'][number][] = [];
  for (let i = log.length - 1; i >= 0; i -= 1) {
    const line = log[i] as WorkerSnapshot['log'][number];
    if (line.stream === 'stdout' ? out++ < LOG_TAIL_LINES : err++ < LOG_TAIL_LINES) kept.push(line);
  }
  return kept.reverse();
}

export function createWorkersFeed(options: WorkersFeedOptions): WorkersFeed {
  const { registry, events, batchMs = 250, gpuEveryMs = 5000 } = options;
  const readGpu = options.readGpu ?? (() => readGpuMemory());
  let timer: ReturnType<typeof setTimeout> | undefined;
  let gpuTimer: ReturnType<typeof setInterval> | undefined;
  let closed = false;

  const anyGpu = (workers: readonly WorkerSnapshot[]) => workers.some((w) => w.gpus !== null && w.gpus.length > 0);

  async function view(): Promise<WorkersView> {
    const workers = registry.list();
    // nvidia-smi is asked only when a worker was given GPUs (a CPU host may not have it at all).
    const gpu = anyGpu(workers) ? await readGpu() : null;
    return { workers: workers.map((w) => workerView(w, gpu)), gpuProblem: gpu?.problem ?? null, at: new Date().toISOString() };
  }

  async function send(): Promise<void> {
    timer = undefined;
    if (closed) return;
    events.emit('workers.changed', await view());
    // GPU memory changes without the registry noticing: read it again while a worker holds a GPU.
    const needPolling = anyGpu(registry.list());
    if (needPolling && !gpuTimer) {
      gpuTimer = setInterval(schedule, gpuEveryMs);
      gpuTimer.unref();
    } else if (!needPolling && gpuTimer) {
      clearInterval(gpuTimer);
      gpuTimer = undefined;
    }
  }

  function schedule(): void {
    if (closed || timer) return;
    timer = setTimeout(() => {
      send().catch((error: unknown) => events.log('warn', `workers panel update failed: ${(error as Error).message}`));
    }, batchMs);
    timer.unref();
  }

  const unsubscribe = registry.onChange(schedule);
  const stopLifecycle = registry.onLifecycle((event) => {
    const { level, message } = lifecycleLogLine(event);
    events.log(level, message);
  });
  return {
    view,
    close() {
      closed = true;
      unsubscribe();
      stopLifecycle();
      if (timer) clearTimeout(timer);
      if (gpuTimer) clearInterval(gpuTimer);
    },
  };
}
