import { defineConfig } from '@playwright/test';

/** Debian's chromium (no Playwright browser download); override with GATELAB_CHROMIUM. */
export const CHROMIUM_PATH = process.env.GATELAB_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Flags for a quiet, deterministic headless Chromium. Playwright launches
 * every browser with a fresh temporary user-data-dir of its own, so no
 * profile state carries over between runs.
 */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results/playwright',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  projects: [
    {
      // Chromium against browser mode: the real server, the real renderer.
      name: 'web',
      testDir: 'e2e/web',
      use: {
        browserName: 'chromium',
        headless: true,
        viewport: { width: 1440, height: 1000 },
        deviceScaleFactor: 1,
        launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS },
      },
    },
    {
      // The Electron window; skipped, with the reason printed, when no binary exists.
      name: 'electron',
      testDir: 'e2e/electron',
    },
  ],
});
