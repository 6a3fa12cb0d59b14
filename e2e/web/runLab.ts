import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as base } from '@playwright/test';
import { startBrowserMode } from './browserMode';

export interface RunLab {
  /** The URL with the launch token, as printed. */
  url: string;
  /** The lab's runs folder (GATELAB_RUNS_DIR), a fresh temporary folder. */
  runsDir: string;
  output: () => string;
}

/**
 * Browser mode with its runs folder in a fresh temporary directory so a
 * test's runs never mix with a person's. Stopped (SIGTERM; its engine and
 * trainer processes exit with it) when the worker ends.
 */
export const test = base.extend<object, { runLab: RunLab }>({
  runLab: [
    async ({}, use) => {
      const runsDir = await mkdtemp(join(tmpdir(), 'gatelab-e2e-runs-'));
      const { child, url, output } = await startBrowserMode({ GATELAB_RUNS_DIR: runsDir });
      await use({ url, runsDir, output });
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      await rm(runsDir, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
});

export { expect } from '@playwright/test';
