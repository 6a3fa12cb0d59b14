import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REAPER_GRACE_MS } from './processGroupReaper';

const labSource = fileURLToPath(new URL('./testing/labWithWorkers.ts', import.meta.url));
const tsx = createRequire(import.meta.url).resolve('tsx');

/** Alive: in /proc and not a zombie waiting to be reaped. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2)[0] ?? 'X');
  } catch {
    return false;
  }
}

describe.skipIf(process.platform !== 'linux')('the group watcher (real processes)', () => {
  it('stops every group the lab started once the lab is killed with SIGKILL: SIGTERM, then SIGKILL for what ignores it, helpers included; then exits', async () => {
    const lab = spawn(process.execPath, ['--import', tsx, labSource], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve) => createInterface({ input: lab.stdout }).once('line', resolve));
    const pids = JSON.parse(line) as { worker: number; helper: number; watcher: number };
    for (const pid of Object.values(pids)) expect(alive(pid)).toBe(true);
    const exited = new Promise((resolve) => lab.once('exit', resolve));
    lab.kill('SIGKILL');
    await exited;
    // The worker ignores SIGTERM and its stdin's end: only the watcher's SIGKILL, after its grace, stops it.
    await expect.poll(() => Object.values(pids).filter(alive), { timeout: REAPER_GRACE_MS + 20_000, interval: 100 }).toEqual([]);
  }, 60_000);
});
