/**
 * The lab process's record of its worker processes, kept by the supervisors
 * themselves: every `SupervisedWorker` registers here when it is made and
 * reports each launch, state change, exit and log line, and leaves when it
 * is shut down. So whatever a recipe runs — the embedded engine and trainer,
 * a Python trainer, a vLLM server — is listed the same way, from the one
 * place that starts and restarts it (docs/internals.md, "Build, run, test").
 *
 * What the registry knows is what the supervisor knows: the role it was
 * given, how it started the process (its entry), the pid, the state, the
 * restarts and the output. The CPU priority is read from the OS when asked
 * (the real nice value, not the configured one); GPU memory is measured
 * elsewhere (gpuMemory.ts) for the GPU indices the recipe assigned.
 */
import { getPriority } from 'node:os';
import path from 'node:path';
import { LineRing } from './lineRing';
import type { WorkerEntry } from './workerEntry';
import { WorkerLogFile } from './workerLogFile';

/** A supervisor's states (supervisedWorker.ts); spelled here so the registry does not import the supervisor. */
export type RegisteredState = 'idle' | 'starting' | 'running' | 'restarting' | 'failed' | 'stopped';

/** What a supervisor's owner says about its worker: the registry cannot guess these. */
export interface WorkerDescriptor {
  /** What the worker does in the run: serving, probe, trainer, prm, student, … */
  readonly role: string;
  /** GPU indices from the recipe's device map (CUDA_VISIBLE_DEVICES); absent: the worker runs on the CPU. */
  readonly gpus?: readonly number[];
  /**
   * Where the worker's whole output is appended (the run folder's
   * `workers/<role>.log`), with each start and exit; absent: only the tail is kept.
   */
  readonly logFile?: string;
}

export type WorkerLogLine = {
  readonly at: number;
  readonly stream: 'stdout' | 'stderr';
  readonly line: string;
  /** Its place in the worker's output, across both streams: how the two tails merge back in order. */
  readonly seq: number;
};

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
  /** The newest lines of each stream (LOG_LINES_KEPT of each), merged in the order they were written. */
  readonly log: readonly WorkerLogLine[];
}

/**
 * What befell a worker's process, for whoever tells a person (the lab log):
 * an exit (a crash when the supervisor did not stop it) with the last lines
 * it wrote to stderr, and each process a supervisor started after one.
 */
export type WorkerLifecycleEvent =
  | {
      readonly kind: 'exited';
      readonly worker: WorkerSnapshot;
      /** The pid of the process that is gone (the snapshot's is already cleared). */
      readonly pid: number | null;
      readonly reason: string;
      readonly restarting: boolean;
      readonly stderrTail: readonly string[];
    }
  | { readonly kind: 'restarted'; readonly worker: WorkerSnapshot };

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

/** Lines kept per worker and stream (a chatty stdout never pushes stderr's last words out); the panel shows the tail. */
export const LOG_LINES_KEPT = 200;
/** Lines of stderr quoted with a crash. */
export const CRASH_TAIL_LINES = 5;
/** A longer line is cut (a worker that prints a tensor must not fill the registry). */
export const LOG_LINE_CHARS = 500;

type MutableRecord = {
  -readonly [K in keyof Omit<WorkerSnapshot, 'log'>]: WorkerSnapshot[K];
} & { readonly out: LineRing<WorkerLogLine>; readonly err: LineRing<WorkerLogLine> };

/** Both streams' tails as one, in the order the lines were written. */
function mergedLog(r: MutableRecord): WorkerLogLine[] {
  return [...r.out.toArray(), ...r.err.toArray()].sort((a, b) => a.seq - b.seq);
}

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
  private readonly lifecycleListeners = new Set<(event: WorkerLifecycleEvent) => void>();
  private next = 1;
  private nextLine = 0;
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
      out: new LineRing(LOG_LINES_KEPT),
      err: new LineRing(LOG_LINES_KEPT),
    };
    this.records.set(id, record);
    this.changed();
    const file = descriptor?.logFile === undefined ? undefined : new WorkerLogFile(descriptor.logFile);
    const mark = (what: string) => file?.write(`--- ${new Date(this.now()).toISOString()} ${record.name}: ${what} ---`);
    /** Set by a crash the supervisor restarts from: its next launch is the restart. */
    let restartDue = false;
    /** Lets a held restart go when its worker is shut down meanwhile. */
    let releaseHeld: (() => void) | undefined;
    const shutDown = new AbortController();
    return {
      launched: (entry, pid, label) => {
        record.kind = entry.kind;
        record.command = label === undefined ? describeCommand(entry) : `${label}: ${describeCommand(entry)}`;
        record.pid = pid ?? null;
        record.startedAt = this.now();
        mark(`started ${pid === undefined ? (label ?? 'a process') : `pid ${pid}`}: ${record.command}`);
        this.changed();
        if (restartDue) {
          restartDue = false;
          this.announce({ kind: 'restarted', worker: this.snapshotOf(record) });
        }
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
        const pid = record.pid;
        record.lastExit = { at: this.now(), reason };
        record.pid = null;
        record.startedAt = null;
        if (restarting) record.restarts += 1;
        restartDue = restarting;
        mark(`${reason}${restarting ? '; restarting' : ''}`);
        this.changed();
        const stderrTail = record.err.last(CRASH_TAIL_LINES).map((l) => l.line);
        this.announce({ kind: 'exited', worker: this.snapshotOf(record), pid, reason, restarting, stderrTail });
      },
      log: (line, stream) => {
        const at = this.now();
        file?.write(`${new Date(at).toISOString()} ${stream} ${line}`);
        const kept = { at, stream, line: line.length > LOG_LINE_CHARS ? `${line.slice(0, LOG_LINE_CHARS)}…` : line, seq: this.nextLine++ };
        (stream === 'stderr' ? record.err : record.out).push(kept);
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
        file?.close();
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
   * Called at each exit of a worker's process and each restart after one
   * (synchronously, after the change listeners).
   */
  onLifecycle(listener: (event: WorkerLifecycleEvent) => void): () => void {
    this.lifecycleListeners.add(listener);
    return () => this.lifecycleListeners.delete(listener);
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
    const { out: _out, err: _err, ...rest } = r;
    return { ...rest, nice: niceOfProcess(r.pid), gpus: r.gpus === null ? null : [...r.gpus], log: mergedLog(r) };
  }

  private announce(event: WorkerLifecycleEvent): void {
    for (const listener of this.lifecycleListeners) {
      try {
        listener(event);
      } catch {
        // One broken listener must not stop the supervisor that reported.
      }
    }
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

/** The registry of this lab process: every supervisor reports here unless told otherwise. */
export const workerRegistry = new WorkerRegistry();
