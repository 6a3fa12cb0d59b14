/**
 * One running worker process, whatever started it: a Node child with an IPC
 * channel, an Electron utility process, or any program speaking JSON lines
 * on stdin/stdout. Always spawned with an argument array, never a shell.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { WorkerEntry } from './workerEntry';
import type { RequestMessage } from './workerMessages';
import { utilityProcessFork } from './utilityProcessHost';
import { watchGroup } from './processGroupReaper';

/** Tells the worker which channel to listen on (read by serveWorker). */
export const WORKER_CHANNEL_ENV = 'GATELAB_WORKER_CHANNEL';
export type WorkerChannel = 'ipc' | 'utility' | 'jsonl';

export interface WorkerExit {
  readonly code: number | null;
  readonly signal: string | null;
  /** Set when the process could not be started or the channel broke. */
  readonly error?: string;
}

export interface WorkerProcess {
  /** The OS pid on this host; undefined for a process on another machine (a Ray job). */
  readonly pid: number | undefined;
  /** Where it runs when not a child of this process, for the workers panel (e.g. `ray job gatelab-…`). */
  readonly label?: string;
  /** Throws when the channel is closed. */
  send(message: RequestMessage): void;
  onMessage(listener: (message: unknown) => void): void;
  /** Called once, when the process is gone. */
  onExit(listener: (exit: WorkerExit) => void): void;
  kill(signal: 'SIGTERM' | 'SIGKILL'): void;
}

export interface LaunchOptions {
  /** For logs and Electron's service name. */
  readonly name: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Each line the worker writes to stderr (and stdout, unless stdout is the channel). */
  readonly onLog?: (line: string, stream: 'stdout' | 'stderr') => void;
}

/**
 * How a supervisor starts one process of its worker: `launchWorker` on this
 * host by default; a runner (a Ray job, src/remote/ray/) may start it
 * elsewhere and hand back the same WorkerProcess.
 */
export type WorkerLauncher = (entry: WorkerEntry, options: LaunchOptions) => WorkerProcess;

export function launchWorker(entry: WorkerEntry, options: LaunchOptions): WorkerProcess {
  switch (entry.kind) {
    case 'node':
      return launchChild(entry.command, entry.args, entry.env, 'ipc', options);
    case 'process':
      return launchChild(entry.command, entry.args, entry.env, 'jsonl', options);
    case 'utility':
      return launchUtility(entry.modulePath, entry.args, options);
    default: {
      const unreachable: never = entry;
      throw new Error(`unknown worker entry ${JSON.stringify(unreachable)}`);
    }
  }
}

function forwardLines(stream: Readable | null | undefined, kind: 'stdout' | 'stderr', onLog: LaunchOptions['onLog']): void {
  if (!stream) return;
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  lines.on('line', (line) => onLog?.(line, kind));
}

/** A tiny once-only event for exits, so late listeners still hear about it. */
export class ExitSignal {
  private exit: WorkerExit | undefined;
  private readonly listeners: Array<(exit: WorkerExit) => void> = [];

  fire(exit: WorkerExit): void {
    if (this.exit) return;
    this.exit = exit;
    for (const listener of this.listeners.splice(0)) listener(exit);
  }

  on(listener: (exit: WorkerExit) => void): void {
    if (this.exit) listener(this.exit);
    else this.listeners.push(listener);
  }

  get fired(): boolean {
    return this.exit !== undefined;
  }
}

/** How long an exit waits for the rest of the process's output (a grandchild may hold its pipes open). */
export const OUTPUT_DRAIN_MS = 2000;

/**
 * Reports the exit once the process's stdout and stderr are read to their end
 * (Node's 'close'), so whoever hears of a crash already has its last lines.
 * A helper process that inherited the pipes could hold 'close' back for as
 * long as it lives: then the exit goes out OUTPUT_DRAIN_MS after the process ended.
 */
export function reportExitAfterOutput(child: ChildProcess, exit: ExitSignal): void {
  child.once('exit', (code, signal) => {
    setTimeout(() => exit.fire({ code, signal }), OUTPUT_DRAIN_MS).unref();
  });
  child.once('close', (code: number | null, signal: NodeJS.Signals | null) => exit.fire({ code, signal }));
}

function launchChild(
  command: string,
  args: readonly string[],
  entryEnv: Readonly<Record<string, string>>,
  channel: 'ipc' | 'jsonl',
  options: LaunchOptions,
): WorkerProcess {
  const child: ChildProcess = spawn(command, [...args], {
    cwd: options.cwd,
    env: { ...process.env, ...entryEnv, ...options.env, [WORKER_CHANNEL_ENV]: channel },
    stdio: channel === 'ipc' ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['pipe', 'pipe', 'pipe'],
    shell: false,
    windowsHide: true,
    // Its own process group: a Ctrl-C at the terminal reaches the lab alone, which stops its workers
    // in order (a probe in flight is not cut off and its candidate not failed for it). It still dies
    // with the lab: its IPC channel or stdin ends (serveWorker, the torch worker), and the group
    // watcher stops whatever is left of its group once the lab is gone, even killed.
    detached: true,
  });
  watchGroup(child);
  const exit = new ExitSignal();
  const messageListeners: Array<(message: unknown) => void> = [];
  const deliver = (message: unknown) => {
    for (const listener of messageListeners) listener(message);
  };

  child.on('error', (error) => {
    // Spawn failures (ENOENT, EACCES) arrive here and no 'exit' follows.
    if (child.pid === undefined) exit.fire({ code: null, signal: null, error: error.message });
    else options.onLog?.(`[${options.name}] process error: ${error.message}`, 'stderr');
  });
  reportExitAfterOutput(child, exit);
  forwardLines(child.stderr, 'stderr', options.onLog);

  if (channel === 'ipc') {
    forwardLines(child.stdout, 'stdout', options.onLog);
    child.on('message', deliver);
  } else {
    const lines = createInterface({ input: child.stdout as Readable, crlfDelay: Infinity });
    lines.on('line', (line) => {
      const trimmed = line.trim();
      if (trimmed === '') return;
      let message: unknown;
      try {
        message = JSON.parse(trimmed);
      } catch {
        options.onLog?.(line, 'stdout');
        return;
      }
      deliver(message);
    });
    // Writing to a dead child's stdin raises EPIPE asynchronously; the exit event reports it.
    child.stdin?.on('error', (error) => options.onLog?.(`[${options.name}] stdin: ${error.message}`, 'stderr'));
  }

  return {
    pid: child.pid,
    send(message) {
      if (exit.fired) throw new Error(`worker ${options.name} has exited`);
      if (channel === 'ipc') {
        if (!child.connected) throw new Error(`worker ${options.name}: IPC channel is closed`);
        child.send(message);
      } else {
        if (!child.stdin || child.stdin.destroyed) throw new Error(`worker ${options.name}: stdin is closed`);
        child.stdin.write(`${JSON.stringify(message)}\n`);
      }
    },
    onMessage(listener) {
      messageListeners.push(listener);
    },
    onExit(listener) {
      exit.on(listener);
    },
    kill(signal) {
      if (!exit.fired) child.kill(signal);
    },
  };
}

function launchUtility(modulePath: string, args: readonly string[], options: LaunchOptions): WorkerProcess {
  const fork = utilityProcessFork();
  if (!fork) throw new Error(`worker ${options.name}: no utilityProcess fork is registered (src/surfaces/electronMain must register one)`);
  const env: Record<string, string | undefined> = { ...process.env, ...options.env, [WORKER_CHANNEL_ENV]: 'utility' };
  const child = fork(modulePath, [...args], { env, stdio: 'pipe', serviceName: `gatelab-${options.name}` });
  const exit = new ExitSignal();
  const messageListeners: Array<(message: unknown) => void> = [];
  child.on('message', (message) => {
    for (const listener of messageListeners) listener(message);
  });
  child.on('exit', (code) => exit.fire({ code, signal: null }));
  forwardLines(child.stdout, 'stdout', options.onLog);
  forwardLines(child.stderr, 'stderr', options.onLog);
  return {
    get pid() {
      return child.pid;
    },
    send(message) {
      if (exit.fired) throw new Error(`worker ${options.name} has exited`);
      child.postMessage(message);
    },
    onMessage(listener) {
      messageListeners.push(listener);
    },
    onExit(listener) {
      exit.on(listener);
    },
    kill() {
      // Electron's UtilityProcess.kill() takes no signal: it terminates.
      if (!exit.fired) child.kill();
    },
  };
}
