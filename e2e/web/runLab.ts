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
  /**
   * With `holdRestarts`, the folder of the lab's restart barrier
   * (GATELAB_TEST_HOLD_RESTARTS): a crashed worker's restart waits for its
   * release file there, so a test sees it restarting; else null.
   */
  holdDir: string | null;
  output: () => string;
}

/**
 * Browser mode with its runs folder in a fresh temporary directory so a
 * test's runs never mix with a person's (or another spec file's). Stopped (SIGTERM; its engine and
 * trainer processes exit with it) when the worker ends. A spec that sets
 * `test.use({ holdRestarts: true })` gets its own lab with the restart barrier.
 */
export const test = base.extend<object, { runLab: RunLab; holdRestarts: boolean; labFor: string }>({
  holdRestarts: [false, { option: true, scope: 'worker' }],
  /**
   * Every spec file names its lab (`test.use({ labFor: '<file>' })`). It is a
   * worker-scoped option, so Playwright runs each file in a worker, with a lab,
   * of its own: what one file leaves in the lab (a run on screen, candidates
   * waiting in its runs folder) never meets another file's expectations of a
   * fresh lab. The tests of one file share their lab.
   */
  labFor: ['', { option: true, scope: 'worker' }],
  runLab: [
    async ({ holdRestarts, labFor }, use) => {
      if (labFor === '') throw new Error("name this spec file's lab: test.use({ labFor: '<file>' })");
      const runsDir = await mkdtemp(join(tmpdir(), 'gatelab-e2e-runs-'));
      const holdDir = holdRestarts ? await mkdtemp(join(tmpdir(), 'gatelab-e2e-hold-')) : null;
      const { child, url, output } = await startBrowserMode({
        GATELAB_RUNS_DIR: runsDir,
        ...(holdDir !== null ? { GATELAB_TEST_HOLD_RESTARTS: holdDir } : {}),
      });
      await use({ url, runsDir, holdDir, output });
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      await rm(runsDir, { recursive: true, force: true });
      if (holdDir !== null) await rm(holdDir, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
});

export { expect } from '@playwright/test';
