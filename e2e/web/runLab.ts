import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as base } from '@playwright/test';
import { REPO_ROOT } from '../paths';

export interface RunLab {
  /** The URL with the launch token, as printed. */
  url: string;
  /** The lab's runs folder (GATELAB_RUNS_DIR), a fresh temporary folder. */
  runsDir: string;
  output: () => string;
}

/**
 * Browser mode as `npm start` runs it (dist/lab/browser.js), with its runs
 * folder in a fresh temporary directory so a test's runs never mix with a
 * person's. Stopped (SIGTERM; its engine and trainer processes exit with
 * it) when the worker ends.
 */
async function startRunLab(): Promise<{ lab: RunLab; child: ChildProcess }> {
  const entry = join(REPO_ROOT, 'dist', 'lab', 'browser.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first`);
  const runsDir = await mkdtemp(join(tmpdir(), 'gatelab-e2e-runs-'));
  const child = spawn(process.execPath, [entry, '--no-open', '--port', '0'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GATELAB_NO_OPEN: '1', GATELAB_RUNS_DIR: runsDir },
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`browser mode did not print its URL in 20 s:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /^GATELAB_URL=(\S+)$/m.exec(output);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`browser mode exited with ${code}:\n${output}`));
    });
  });
  return { child, lab: { url, runsDir, output: () => output } };
}

export const test = base.extend<object, { runLab: RunLab }>({
  runLab: [
    async ({}, use) => {
      const { lab, child } = await startRunLab();
      await use(lab);
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      await rm(lab.runsDir, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
});

export { expect } from '@playwright/test';
