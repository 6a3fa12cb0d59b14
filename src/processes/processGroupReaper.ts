/**
 * Every worker the lab starts on this host runs in its own process group, so
 * a Ctrl-C at the terminal (SIGINT to the lab's group) reaches the lab alone
 * and a probe in flight is not cut off. The price: a worker no longer dies
 * with the lab's group. Most notice the lab is gone (their IPC channel or
 * stdin ends) — but a lab killed with SIGKILL runs no cleanup, and an HTTP
 * server we do not write (vLLM, SGLang) watches neither, nor do the helper
 * processes an engine or torchrun starts.
 *
 * So the lab keeps one small watcher process beside it: its own group too (a
 * Ctrl-C does not stop it), told the group of each worker as it starts and
 * forgotten as it ends, over a pipe from the lab. When that pipe ends — the
 * lab is gone, however it died — the watcher sends SIGTERM to every group
 * still there, SIGKILL after a grace, and exits. One process for all the
 * workers; their pids, priorities and channels are untouched.
 */
import { spawn, type ChildProcess } from 'node:child_process';

/** How long the watcher lets the groups stop after SIGTERM before SIGKILL. */
export const REAPER_GRACE_MS = 5000;

/**
 * The watcher itself, run with `node -e`. Lines from the lab: `+<pgid>` watch
 * a group, `-<pgid>` forget it. It ignores SIGINT/SIGTERM/SIGHUP: only the
 * end of its pipe (or SIGKILL) stops it.
 */
const WATCHER_SOURCE = `
const groups = new Set();
let pending = '';
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => undefined);
const exists = (g) => { try { process.kill(-g, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
const signal = (g, s) => { try { process.kill(-g, s); } catch { /* the group is gone */ } };
process.stdin.on('data', (chunk) => {
  pending += chunk.toString('utf8');
  const lines = pending.split('\\n');
  pending = lines.pop();
  for (const line of lines) {
    const g = Number(line.slice(1));
    if (!Number.isInteger(g) || g <= 1) continue;
    if (line[0] === '+') groups.add(g); else if (line[0] === '-') groups.delete(g);
  }
});
process.stdin.on('end', () => {
  const left = [...groups].filter(exists);
  for (const g of left) signal(g, 'SIGTERM');
  const deadline = Date.now() + ${REAPER_GRACE_MS};
  const check = setInterval(() => {
    const still = left.filter(exists);
    if (still.length > 0 && Date.now() < deadline) return;
    for (const g of still) signal(g, 'SIGKILL');
    clearInterval(check);
    process.exit(0);
  }, 50);
});
process.stdin.resume();
`;

export class ProcessGroupReaper {
  private watcher: ChildProcess | undefined;

  constructor(private readonly enabled: boolean = process.platform !== 'win32') {}

  /** The watcher's pid once it runs (tests check that it is gone after the lab). */
  get pid(): number | undefined {
    return this.watcher?.pid;
  }

  /** Watches the group of a worker just started with `detached: true` (its pid is its group's id). */
  watch(pgid: number | undefined): void {
    if (pgid !== undefined) this.tell(`+${pgid}`);
  }

  /** The worker's group is gone or stopped by the lab: never signal that id again. */
  forget(pgid: number | undefined): void {
    if (pgid !== undefined && this.watcher !== undefined) this.tell(`-${pgid}`);
  }

  private tell(line: string): void {
    if (!this.enabled) return;
    const watcher = this.start();
    if (watcher?.stdin && !watcher.stdin.destroyed) watcher.stdin.write(`${line}\n`);
  }

  private start(): ChildProcess | undefined {
    if (this.watcher && this.watcher.exitCode === null && this.watcher.signalCode === null) return this.watcher;
    const watcher = spawn(process.execPath, ['-e', WATCHER_SOURCE], {
      // Under Electron the same binary acts as plain Node when asked to.
      env: { ...process.env, ...(process.versions.electron !== undefined ? { ELECTRON_RUN_AS_NODE: '1' } : {}) },
      stdio: ['pipe', 'ignore', 'inherit'],
      detached: true,
      windowsHide: true,
    });
    watcher.on('error', (error) => process.stderr.write(`the worker watcher could not start: ${error.message}\n`));
    // It must not keep the lab alive, nor fail the lab when it is gone.
    watcher.stdin?.on('error', () => undefined);
    watcher.unref();
    (watcher.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    this.watcher = watcher;
    return watcher;
  }
}

/** This lab process's watcher: every local worker's group is reported here. */
export const processGroupReaper = new ProcessGroupReaper();

/**
 * A worker just spawned with `detached: true` (its pid is its group's id):
 * its group is watched while it lives; when it exits, whatever it left in
 * its group (an engine's or torchrun's helpers) is killed and the group
 * forgotten, so its id is never signalled again.
 */
export function watchGroup(child: ChildProcess, reaper: ProcessGroupReaper = processGroupReaper): void {
  const pgid = child.pid;
  if (pgid === undefined || process.platform === 'win32') return;
  reaper.watch(pgid);
  child.once('exit', () => {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // nothing was left in the group
    }
    reaper.forget(pgid);
  });
}
