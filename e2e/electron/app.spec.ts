import { join } from 'node:path';
import { _electron as electron, expect, test } from '@playwright/test';
// @ts-expect-error plain .mjs helper shared with the scripts (no type declarations)
import { electronAvailability } from '../../scripts/lib/electronBinary.mjs';
import { REFERENCE_ID, REPO_ROOT, SCREENSHOT_DIR } from '../paths';

const availability = electronAvailability() as { ok: true; binary: string } | { ok: false; reason: string };
if (!availability.ok) console.log(`[electron] skipped: ${availability.reason}`);

test.describe('the Electron window', () => {
  test.skip(!availability.ok, availability.ok ? '' : `no Electron window possible: ${availability.reason}`);

  test('opens app://gatelab hardened, talks to the lab over IPC and draws the reference', async () => {
    if (!availability.ok) return;
    // Chromium refuses to start as root with its OS sandbox; CI containers run as root.
    const rootArgs = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
    const app = await electron.launch({
      executablePath: availability.binary,
      args: [...rootArgs, join(REPO_ROOT, 'dist', 'main', 'main.js')],
      cwd: REPO_ROOT,
    });
    try {
      const page = await app.firstWindow();
      await page.waitForLoadState('domcontentloaded');
      expect(page.url()).toBe('app://gatelab/index.html');

      // The page has no Node, and the bridge exposes exactly invoke + subscribe.
      const surface = await page.evaluate(() => ({
        require: typeof (window as unknown as { require?: unknown }).require,
        process: typeof (window as unknown as { process?: unknown }).process,
        bridge: Object.keys((window as unknown as { gatelab: object }).gatelab).sort(),
      }));
      expect(surface).toEqual({ require: 'undefined', process: 'undefined', bridge: ['invoke', 'subscribe'] });

      await expect(page.getByTestId('mode-badge')).toHaveText('Electron · IPC');
      await page.getByTestId(`reference-${REFERENCE_ID}`).click();
      await expect(page.getByTestId('curve-chart')).toHaveAttribute('data-points', '36');
      await expect(page.getByTestId('curve-chart')).toHaveAttribute('data-published-marker', '14');

      // Navigation away and new windows are refused.
      const opened = await page.evaluate(() => window.open('https://example.com/') === null);
      expect(opened).toBe(true);
      await page.evaluate(() => {
        window.location.href = 'https://example.com/';
      });
      await page.waitForTimeout(500);
      expect(page.url()).toBe('app://gatelab/index.html');
      expect(app.windows()).toHaveLength(1);

      await page.screenshot({ path: join(SCREENSHOT_DIR, 'electron-reef-reference.png') });
    } finally {
      await app.close();
    }
  });
});
