import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { prepareAwaitingConfirmRun } from '../../src/lab/testing/preparedRun';
import { writePreparedEmbeddedRecipe } from './preparedRecipe';
import { expect, test } from './runLab';
import { clippedElements, shootBothThemes, SMALL_WINDOW } from './screens';
import { watchConsole } from './watchConsole';

// The run this lab runs keeps running while the person looks at another run:
// a candidate waiting elsewhere is one click away, and nothing has to stop.
test.use({ labFor: 'backgroundRun', viewport: SMALL_WINDOW });

const runningDone = async (page: Page): Promise<number> => Number(await page.getByTestId('running-link').getAttribute('data-completed'));

test.describe('a live run keeps running in the background (Chromium, browser mode)', () => {
  test("one click from the top bar to another run's waiting candidate while a run runs: the run goes on, its sessions keep completing; back to it, it is live and up to date; Stop", async ({
    page,
    runLab,
  }) => {
    test.setTimeout(15 * 60_000);
    const problems = watchConsole(page);
    // A run folder with a candidate that passed every probe round (the real gate and probe engine; see preparedRun.ts).
    const recipe = await writePreparedEmbeddedRecipe();
    const prepared = await prepareAwaitingConfirmRun(recipe, join(runLab.runsDir, 'prepared-waiting'), { sessions: 2 }, 1);
    expect(prepared.candidates.map((c) => c.state)).toEqual(['awaiting-confirm']);

    // A real run from the Start page, a person confirming; long enough to still run when the test comes back to it (it is stopped then).
    await page.goto(runLab.url);
    await expect(page.getByTestId('start-view')).toBeVisible();
    await page.getByTestId('start-sessions').fill('60');
    await page.getByTestId('confirm-manual').click();
    await page.getByTestId('start-button').click();
    await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'running', { timeout: 120_000 });
    const liveId = (await page.getByTestId('run-view').getAttribute('data-run-id')) ?? '';
    expect(liveId).toMatch(/^embedded-gsm8k-style-seed/);

    // One click from the top bar to the prepared run's candidate, while the real run runs.
    await page.getByTestId('awaiting-count').click();
    await page.getByTestId('awaiting-menu').getByTestId('awaiting-item-prepared-waiting-c1').click();
    await expect(page.getByTestId('run-view')).toHaveAttribute('data-run-id', 'prepared-waiting');
    await expect(page.getByTestId('candidate-c1').getByTestId('confirm-button')).toBeInViewport();

    // The live run goes on: the top bar says so on every page, and its sessions keep completing.
    const running = page.getByTestId('running-link');
    await expect(running).toBeVisible();
    await expect(running).toContainText(liveId);
    const doneThen = await runningDone(page);
    await expect.poll(() => runningDone(page), { timeout: 5 * 60_000 }).toBeGreaterThan(doneThen);
    await page.getByTestId('tab-start').click();
    await expect(running).toBeVisible();
    // A second run is still refused while one runs here; the reason names it.
    await expect(page.getByTestId('start-button')).toBeDisabled();
    await expect(page.getByTestId('start-busy')).toContainText(liveId);
    await expect(page.getByTestId(`run-folder-${liveId}`)).toHaveAttribute('data-status', 'running');
    expect(await clippedElements(page)).toEqual([]);
    await shootBothThemes(page, 'web-start-run-in-background');
    await page.getByTestId('tab-run').click();
    await expect(page.getByTestId('run-view')).toHaveAttribute('data-run-id', 'prepared-waiting');
    expect(await clippedElements(page)).toEqual([]);
    // The top bar holds the way back without pushing the window wider than it is.
    expect(await page.locator('header.topbar').evaluate((bar) => bar.scrollWidth - bar.clientWidth)).toBeLessThanOrEqual(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await shootBothThemes(page, 'web-run-in-background');

    // A decision on the run on screen goes to its own gate: the live run is not touched.
    const c1 = page.getByTestId('candidate-c1');
    await c1.getByTestId('confirm-button').click();
    await expect(c1).toHaveAttribute('data-state', 'promoted', { timeout: 3 * 60_000 });
    await expect(running).toBeVisible();

    // Back to the live run: live again and up to date with what it did meanwhile.
    const doneBefore = await runningDone(page);
    await running.click();
    await expect(page.getByTestId('run-view')).toHaveAttribute('data-run-id', liveId);
    await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', /^(running|pausing|paused)$/);
    await expect.poll(async () => Number(await page.getByTestId('session-progress').getAttribute('data-completed'))).toBeGreaterThanOrEqual(doneBefore);
    // It keeps streaming: the next session done shows up here.
    const shown = Number(await page.getByTestId('session-progress').getAttribute('data-completed'));
    await expect
      .poll(async () => Number(await page.getByTestId('session-progress').getAttribute('data-completed')), { timeout: 5 * 60_000 })
      .toBeGreaterThan(shown);

    await page.getByTestId('stop-button').click();
    await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'stopped', { timeout: 5 * 60_000 });
    await expect(running).toHaveCount(0);
    expect(problems).toEqual([]);
  });
});
