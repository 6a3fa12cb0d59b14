// A lab started the way a person starts one from a terminal — `gatelab run`
// or `gatelab resume` as the leader of its own process group, so a test can
// signal the group as a terminal's Ctrl-C does — and the processes it leaves
// on this host, read from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { readJournal } from '../../src/core/journal/appendOnlyJournal';
import { journalEventSchema, type JournalEvent } from '../../src/core/journal/journalEvents';
import { gatelabCli, repoRoot } from './testRecipe';

export type LabProcess = {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
};

/** `gatelab <args>` with tsx, as the leader of a new process group (its pid is the group's id). */
export function startLab(args: readonly string[], env: Readonly<Record<string, string>> = {}): LabProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', gatelabCli, ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
    detached: true,
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  if (child.pid === undefined) throw new Error('the lab did not start');
  return { child, pid: child.pid, exited, output: () => output };
}

export async function journalOf(runDir: string): Promise<JournalEvent[]> {
  return (await readJournal(path.join(runDir, 'journal.jsonl'), journalEventSchema)).events;
}

/**
 * Resolves once `ready` holds, checking after each change of the run's journal
 * would show (every 100 ms); rejects at `deadlineMs` with what the lab printed,
 * or as soon as the lab exits first. The deadline only bounds a broken run.
 */
export async function waitForJournal(
  runDir: string,
  lab: LabProcess,
  ready: (events: JournalEvent[]) => boolean,
  what: string,
  deadlineMs: number,
): Promise<JournalEvent[]> {
  let gone = false;
  void lab.exited.then(() => (gone = true));
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const events = await journalOf(runDir).catch(() => [] as JournalEvent[]);
    if (ready(events)) return events;
    if (gone) throw new Error(`the lab exited before ${what}:\n${lab.output()}`);
    if (Date.now() > deadline) throw new Error(`no ${what} within ${deadlineMs} ms:\n${lab.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The process's state letter from /proc (R, S, Z, …); null when there is no such process. */
function stateOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: the fields start after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? null;
  } catch {
    return null;
  }
}

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** Alive: it exists and is not a zombie waiting for its (new) parent to reap it. */
export function isAlive(pid: number): boolean {
  const state = stateOf(pid);
  return state !== null && state !== 'Z' && state !== 'X';
}

/** Every process below `pid` on this host now (children, their children, …). */
export function descendantsOf(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const parent = parentOf(Number(name));
    if (parent !== null) parents.set(Number(name), parent);
  }
  const found: number[] = [];
  const below = new Set([pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [child, parent] of parents) {
      if (below.has(parent) && !below.has(child)) {
        below.add(child);
        found.push(child);
        grew = true;
      }
    }
  }
  return found;
}

/** What a process is, for a failure message. */
export function describeProcess(pid: number): string {
  try {
    return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').slice(0, 160)}`;
  } catch {
    return `${pid} (gone)`;
  }
}

/** Resolves once none of `pids` is alive (checked every 100 ms); rejects past the deadline, naming those left. */
export async function waitUntilGone(pids: readonly number[], deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const left = pids.filter(isAlive);
    if (left.length === 0) return;
    if (Date.now() > deadline) throw new Error(`still running ${deadlineMs} ms after the lab: ${left.map(describeProcess).join('; ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
