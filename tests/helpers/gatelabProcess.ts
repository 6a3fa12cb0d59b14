// The `gatelab` command as a person runs it: its own process (node + tsx on the
// CLI's entry), from the repository root, its output collected.
import { spawn, type ChildProcess } from 'node:child_process';
import { gatelabCli, repoRoot } from './testRecipe';

export type GatelabExit = { code: number | null; stdout: string; stderr: string };

export function gatelab(args: string[]): { child: ChildProcess; done: Promise<GatelabExit> } {
  const child = spawn(process.execPath, ['--import', 'tsx', gatelabCli, ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<GatelabExit>((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
  return { child, done };
}
