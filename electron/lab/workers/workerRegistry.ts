/**
 * The lab process's record of its worker processes, kept by the supervisors
 * themselves: every `SupervisedWorker` registers here when it is made and
 * reports each launch, state change, exit and log line, and leaves when it
 * is shut down. So whatever a recipe runs — the embedded engine and trainer,
 * a Python trainer, a vLLM server — is listed the same way, from the one
 * place that starts and restarts it (docs/internals.md, "Workers").
 *
 * What the registry knows is what the supervisor knows: the role it was
 * given, how it started the process (its entry), the pid, the state, the
 * restarts and the output. The CPU priority is read from the OS when asked
 * (the real nice value, not the configured one); GPU memory is measured
 * elsewhere (gpuMemory.ts) for the GPU indices the recipe assigned.
 */
import { getPriority } from 'node:os';
import path from 'node:path';
import type { WorkerEntry } from './workerEntry';

/** A supervisor's states (supervisedWorker.ts); spelled here so the registry does not import the supervisor. */
export type RegisteredState = 'idle' | 'starting' | 'running' | 'restarting' | 'failed' | 'stopped';

/** What a supervisor's owner says about its worker: the registry cannot guess these. */
export interface WorkerDescriptor {
  /** What the worker does in the run: serving, probe, trainer, prm, student, … */
  readonly role: string;
  /** GPU indices from the recipe's device map (CUDA_VISIBLE_DEVICES); absent: the worker runs on the CPU. */
  readonly gpus?: readonly number[];
}

export type WorkerLogLine = { readonly at: number; readonly stream: 'stdout' | 'stderr'; readonly line: string };

/** One worker as the registry holds it at one instant. */
export interface WorkerSnapshot {
  readonly id: string;
  readonly role: string;
  /** The supervisor's name (engine, trainer, …): several roles may run the same worker. */
  readonly name: string;
  /** How the process was started: a Node child, an Electron utility process, or any program (JSON lines). */
  readonly kind: WorkerEntry['kind'] | null;
  /** The program and its script or module, without the other arguments (they may carry secrets). */
  readonly command: string | null;
  readonly pid: number | null;
  readonly gpus: readonly number[] | null;
  /** The process's nice value as the OS reports it now; null when there is no process to ask. */
  readonly nice: number | null;
  readonly state: RegisteredState;
  /** Why the state changed (a crash, a failed start), as the supervisor said it. */
  readonly detail: string | null;
  readonly restarts: number;
  /** When the current process was launched (ms since the epoch): its uptime. */
  readonly startedAt: number | null;
  readonly stateSince: number;
  readonly lastExit: { readonly at: number; readonly reason: string } | null;
  readonly log: readonly WorkerLogLine[];
}

/** Resolves when a held restart may go ahead; `cancelled` aborts when the worker is shut down meanwhile. */
export type RestartHold = (worker: WorkerSnapshot, cancelled: AbortSignal) => Promise<void>;

/** How a supervisor reports into the registry. */
export interface WorkerReporter {
  /** `label`: where a process on another machine runs (a Ray job), shown before its command. */
  launched(entry: WorkerEntry, pid: number | undefined, label?: string): void;
  /** The pid, once known (a utility process learns it after spawning). */
  pidKnown(pid: number): void;
  state(state: RegisteredState, detail?: string): void;
  /** The process is gone; `restarting` says whether the supervisor starts another. */
  exited(reason: string, restarting: boolean): void;
  log(line: string, stream: 'stdout' | 'stderr'): void;
  /** Resolves when a restart may go ahead (at once, unless a hold is set: see `holdRestarts`). */
  beforeRestart(): Promise<void>;
  /** The supervisor was shut down: its worker leaves the list. */
  remove(): void;
}

/** Lines kept per worker; the panel shows the tail. */
export const LOG_LINES_KEPT = 200;
/** A longer line is cut (a worker that prints a tensor must not fill the registry). */
export const LOG_LINE_CHARS = 500;

type MutableRecord = {
  -readonly [K in keyof WorkerSnapshot]: WorkerSnapshot[K];
} & { log: WorkerLogLine[] };

/** Program and script/module of an entry, for a person; never the other arguments. */
export function describeCommand(entry: WorkerEntry): string {
  const script = (args: readonly string[]) => [...args].reverse().find((a) => /\.(m?[jt]s|cjs|py)$/.test(a));
  switch (entry.kind) {
    case 'node': {
      const file = script(entry.args);
      return file === undefined ? path.basename(entry.command) : `${path.basename(entry.command)} ${path.basename(file)}`;
    }
    case 'utility':
      return `utilityProcess ${path.basename(entry.modulePath)}`;
    case 'process': {
      const program = path.basename(entry.command);
      const [first, second] = entry.args;
      if (first === '-m' && second !== undefined) return `${program} -m ${second}`;
      if (first !== undefined && !first.startsWith('-')) return `${program} ${path.basename(first)}`;
      return program;
    }
    default: {
      const unreachable: never = entry;
      throw new Error(`unknown worker entry ${JSON.stringify(unreachable)}`);
    }
  }
}

function niceOfProcess(pid: number | null): number | null {
  if (pid === null) return null;
  try {
    return getPriority(pid);
  } catch {
    return null; // the process is gone (ESRCH) between the snapshot and the question
  }
}

export class WorkerRegistry {
  private readonly records = new Map<string, MutableRecord>();
  private readonly listeners = new Set<() => void>();
  private next = 1;
  private hold: RestartHold | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  register(name: string, descriptor: WorkerDescriptor | undefined): WorkerReporter {
    const id = `w${this.next++}`;
    const record: MutableRecord = {
      id,
      role: descriptor?.role ?? name,
      name,
      kind: null,
      command: null,
      pid: null,
      gpus: descriptor?.gpus === undefined ? null : [...descriptor.gpus],
      nice: null,
      state: 'idle',
      detail: null,
      restarts: 0,
      startedAt: null,
      stateSince: this.now(),
      lastExit: null,
      log: [],
    };
    this.records.set(id, record);
    this.changed();
    /** Lets a held restart go when its worker is shut down meanwhile. */
    let releaseHeld: (() => void) | undefined;
    const shutDown = new AbortController();
    return {
      launched: (entry, pid, label) => {
        record.kind = entry.kind;
        record.command = label === undefined ? describeCommand(entry) : `${label}: ${describeCommand(entry)}`;
        record.pid = pid ?? null;
        record.startedAt = this.now();
        this.changed();
      },
      pidKnown: (pid) => {
        if (record.pid === pid) return;
        record.pid = pid;
        this.changed();
      },
      state: (state, detail) => {
        if (record.state !== state) record.stateSince = this.now();
        record.state = state;
        record.detail = detail ?? (state === 'running' ? null : record.detail);
        this.changed();
      },
      exited: (reason, restarting) => {
        record.lastExit = { at: this.now(), reason };
        record.pid = null;
        record.startedAt = null;
        if (restarting) record.restarts += 1;
        this.changed();
      },
      log: (line, stream) => {
        record.log.push({ at: this.now(), stream, line: line.length > LOG_LINE_CHARS ? `${line.slice(0, LOG_LINE_CHARS)}…` : line });
        if (record.log.length > LOG_LINES_KEPT) record.log.splice(0, record.log.length - LOG_LINES_KEPT);
        this.changed();
      },
      beforeRestart: () => {
        const hold = this.hold;
        if (!hold) return Promise.resolve();
        return new Promise<void>((resolve) => {
          releaseHeld = resolve;
          hold(this.snapshotOf(record), shutDown.signal).then(resolve, resolve);
        });
      },
      remove: () => {
        shutDown.abort();
        releaseHeld?.();
        if (this.records.delete(id)) this.changed();
      },
    };
  }

  /** Every registered worker, oldest first, with its nice value read from the OS now. */
  list(): WorkerSnapshot[] {
    return [...this.records.values()].map((r) => this.snapshotOf(r));
  }

  /** Called after every change (synchronously: batch on the listener's side). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Makes every restart wait for `hook` (a test's barrier: it sees the
   * crashed worker while its restart is held, then lets it go). Undefined
   * lifts the hold.
   */
  holdRestarts(hook: RestartHold | undefined): void {
    this.hold = hook;
  }

  private snapshotOf(r: MutableRecord): WorkerSnapshot {
    return { ...r, nice: niceOfProcess(r.pid), gpus: r.gpus === null ? null : [...r.gpus], log: [...r.log] };
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

/** The registry of this lab process: every supervisor reports here unless told otherwise. */
export const workerRegistry = new WorkerRegistry();
