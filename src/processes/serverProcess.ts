/**
 * One process of a supervised HTTP server (SupervisedServer), whatever
 * started it: on this host a child in its own process group (so stopping it
 * stops the engine's helper processes too), or — recipe `runner: ray` — a Ray
 * actor that runs the server on its node and tunnels its port here
 * (a RemoteServerHost, below). The supervisor sees the same thing
 * either way: an exit with a reason, and a way to stop it.
 */
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { ExitSignal, reportExitAfterOutput } from './workerProcess';
import { watchGroup } from './processGroupReaper';

export type ServerLaunchSpec = {
  /** The supervisor's name, in logs and errors. */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** Added to the environment the process starts with. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** POSIX nice value (0 = normal). */
  readonly nice: number;
  /** Each output line of the process. */
  readonly onLine: (line: string, stream: 'stdout' | 'stderr') => void;
};

export interface ServerProcess {
  /** The OS pid on this host; undefined for a server on another machine. */
  readonly pid: number | undefined;
  /** Where it runs when not a child of this process, for the workers panel (e.g. `ray job gatelab-…`). */
  readonly label?: string;
  /** Resolves once the process is gone, with why. */
  readonly exited: Promise<string>;
  readonly running: boolean;
  signal(signal: 'SIGTERM' | 'SIGKILL'): void;
}

export type ServerLauncher = (spec: ServerLaunchSpec) => ServerProcess;

/** Where a server on another node has its port in its command line: its launcher picks the port there. */
export const SERVER_PORT_PLACEHOLDER = '{{GATELAB_SERVER_PORT}}';

/**
 * An HTTP server role (a vLLM engine) on another machine, as its supervisor
 * and client see it: a launcher whose command names its port as
 * SERVER_PORT_PLACEHOLDER, a loopback port on this host that reaches the
 * current launch's server, and a way to give the server a folder the lab
 * staged. A runner provides it (recipe `runner: ray`: src/remote/).
 */
export interface RemoteServerHost {
  /** The loopback port on this host that reaches the server (fixed for the host's life). */
  port(): Promise<number>;
  readonly launch: ServerLauncher;
  /** Copies a flat folder the lab staged to the current launch's node; resolves with its path there. */
  placeFolder(localDir: string): Promise<string>;
  close(): Promise<void>;
}

function forward(stream: Readable | null, kind: 'stdout' | 'stderr', onLine: ServerLaunchSpec['onLine']): void {
  if (stream) createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => onLine(line, kind));
}

/** A server on this host: an argument array, no shell, its own process group. */
export function launchLocalServer(spec: ServerLaunchSpec): ServerProcess {
  const child = spawn(spec.command, [...spec.args], {
    ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
    env: { ...process.env, ...spec.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    shell: false,
    detached: true,
    windowsHide: true,
  });
  const alive = () => child.exitCode === null && child.signalCode === null && child.pid !== undefined;
  const signal = (sig: 'SIGTERM' | 'SIGKILL') => {
    if (!alive()) return;
    try {
      // Its own process group (detached): the engine's helper processes are signalled too.
      process.kill(-(child.pid as number), sig);
    } catch {
      child.kill(sig);
    }
  };
  // Its own process group also means it would outlive the lab: when the lab exits without stopping it, kill it;
  // when the lab dies without a chance to (SIGKILL), the group watcher does.
  watchGroup(child);
  const killOnExit = () => signal('SIGKILL');
  process.on('exit', killOnExit);
  if (child.pid !== undefined && spec.nice) setPriority(child.pid, spec.nice);
  forward(child.stdout, 'stdout', spec.onLine);
  forward(child.stderr, 'stderr', spec.onLine);
  const exit = new ExitSignal();
  // Reported once its output is read to the end (bounded), so a crash comes with its last lines.
  reportExitAfterOutput(child, exit);
  const exited = new Promise<string>((resolve) => {
    child.once('error', (error) => resolve(`cannot start ${spec.command}: ${error.message}`));
    exit.on(({ code, signal: sig }) => resolve(`${spec.name} exited (${sig ?? `code ${code}`})`));
  });
  void exited.then(() => process.off('exit', killOnExit));
  return {
    get pid() {
      return child.pid;
    },
    exited,
    get running() {
      return alive();
    },
    signal,
  };
}
