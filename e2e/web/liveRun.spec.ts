import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { prepareAwaitingConfirmRun } from '../../src/lab/testing/preparedRun';
import { writePreparedEmbeddedRecipe } from './preparedRecipe';
import { BAD_CANDIDATE_KINDS } from '../../src/contract/labRuns';
import { SCREENSHOT_DIR } from '../paths';
import { expect, test } from './runLab';
import { clippedElements, shootBothThemes, SMALL_WINDOW } from './screens';
import { watchConsole } from './watchConsole';

const completed = async (page: Page): Promise<number> => Number(await page.getByTestId('session-progress').getAttribute('data-completed'));

/** A screenshot of the whole run page (the main pane scrolls inside the window, so a tall viewport shows all of it). */
async function shootWhole(page: Page, name: string, height = 2300): Promise<void> {
  await page.setViewportSize({ width: 1280, height });
  await page.mouse.move(0, 0); // no tooltip left open over the charts
  await page.locator('main.main').evaluate((main) => main.scrollTo(0, 0));
  await page.screenshot({ path: join(SCREENSHOT_DIR, name) });
  await page.setViewportSize(SMALL_WINDOW);
}

/** Picks a kind and presses Inject: the lab answers at once with the request. */
async function inject(page: Page, kind: string): Promise<void> {
  await page.getByTestId('inject-kind').selectOption(kind);
  await page.getByTestId('inject-button').click();
}

test.use({ labFor: 'liveRun' });
test.describe.configure({ mode: 'serial' });

test.describe('the run UI in browser mode (Chromium), on the embedded recipe', () => {
  test('candidates awaiting a person: impossible to miss; an injection builds in the background while Confirm works; the stale one can only be rejected; rollback through the dialog', async ({
    page,
    runLab,
  }) => {
    test.setTimeout(8 * 60_000);
    const problems = watchConsole(page);
    // The state a short run cannot reach in minutes, prepared by the real gate and probe engine: two
    // no-op adapters (LoRA B = 0) staged through three paired probe rounds each (floors lifted, see preparedRun.ts).
    const recipe = await writePreparedEmbeddedRecipe();
    const prepared = await prepareAwaitingConfirmRun(recipe, join(runLab.runsDir, 'prepared-confirm'), { sessions: 2 }, 2);
    expect(
      prepared.candidates.map((c) => c.state),
      JSON.stringify(prepared.candidates),
    ).toEqual(['awaiting-confirm', 'awaiting-confirm']);

    await page.setViewportSize(SMALL_WINDOW);
    await page.goto(runLab.url);
    await expect(page.getByTestId('start-view')).toBeVisible();
    // The run list: status, sessions, serving, and who waits for you.
    const row = page.getByTestId('run-folder-prepared-confirm');
    await expect(row).toHaveAttribute('data-status', 'stopped');
    await expect(row.getByTestId('run-awaiting')).toHaveText('c1, c2');
    expect(await clippedElements(page)).toEqual([]);
    await shootBothThemes(page, 'web-start');
    await page.getByTestId('open-run-prepared-confirm').click();
    await expect(page.getByTestId('run-view')).toBeVisible();
    await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'viewing');
    await expect(page.getByTestId('serving-version')).toHaveText('base');

    // Impossible to miss: a banner at the top of the run page, a badge on the Run tab, the window title.
    const banner = page.getByTestId('awaiting-banner');
    await expect(banner).toHaveAttribute('data-count', '2');
    await expect(banner).toContainText('2 candidates await your decision');
    await expect(page.getByTestId('run-tab-badge')).toHaveText('⚑ 2');
    await expect(page).toHaveTitle('(2) 2 candidates await you · GateLab');
    await expect(page.getByTestId('progress-gate')).toContainText('c1, c2 await your decision');
    expect(await clippedElements(page)).toEqual([]);
    await shootBothThemes(page, 'web-run-awaiting');
    // Review c1 brings its evidence and buttons into view.
    await page.getByTestId('review-c1').click();
    await expect(page.getByTestId('candidate-c1').getByTestId('confirm-button')).toBeInViewport();

    const c1 = page.getByTestId('candidate-c1');
    const c2 = page.getByTestId('candidate-c2');
    await expect(c1.getByTestId('candidate-state')).toHaveText('awaiting confirmation');
    for (const round of [1, 2, 3]) await expect(c1.locator(`[data-step="round-${round}"]`)).toHaveAttribute('data-status', 'done');
    // Every gated metric of every round against serving: 4 metrics × 3 rounds, all within their limits — all three rounds on screen at 1280 px.
    await expect(c1.locator('td.check')).toHaveCount(12);
    await expect(c1.locator('td.check[data-ok="yes"]')).toHaveCount(12);
    await expect(c1.getByTestId('show-replies-3')).toBeInViewport();
    await c1.getByTestId('show-replies-1').click();
    await expect(page.getByTestId('probe-replies-c1-1').getByTestId('probe-pair')).toHaveCount(4);
    await page.setViewportSize({ width: 1280, height: 3600 });
    await page.mouse.move(0, 0);
    await c1.screenshot({ path: join(SCREENSHOT_DIR, 'web-gate-awaiting-confirm.png') });
    await page.setViewportSize(SMALL_WINDOW);
    await c1.getByTestId('show-replies-1').click();

    // A long injection (reward-inverted: real gradient steps, about a minute) builds in the background…
    await inject(page, 'reward-inverted');
    const building = page.getByTestId('injection-request-i1');
    await expect(building).toHaveAttribute('data-state', 'building');
    // …a second request is queued visibly, not dropped…
    await inject(page, 'nan-inf');
    await expect(page.getByTestId('injection-request-i2')).toHaveAttribute('data-state', 'queued');
    await expect(page.getByTestId('injection-request-i2')).toContainText('queued: next');
    // …and the other controls stay live: a person confirms c1 while it builds.
    await expect(c1.getByTestId('confirm-button')).toBeEnabled();
    await expect(page.getByTestId('inject-button')).toBeEnabled();
    await c1.getByTestId('confirm-button').click();
    await expect(c1).toHaveAttribute('data-state', 'promoted', { timeout: 60_000 });
    const version = (await c1.locator('h4 code').textContent()) ?? '';
    expect(version).toMatch(/^v0-[0-9a-f]{8}$/);
    await expect(page.getByTestId('serving-version')).toHaveText(version);
    await expect(page.getByTestId('last-decision')).toHaveText(`Confirmed c1: serving base → ${version}`);
    await expect(page.getByTestId('run-tab-badge')).toHaveText('⚑ 1');

    // c2 was probed against base, which no longer serves: the gate will not promote it; Reject still works.
    await expect(c2.getByTestId('confirm-stale')).toContainText(`${version} serves now, not base`);
    await expect(c2.getByTestId('confirm-button')).toBeDisabled();
    await c2.locator('.reason-input').fill('probed against base');
    await c2.getByTestId('reject-button').click();
    await expect(c2).toHaveAttribute('data-state', 'rejected', { timeout: 60_000 });
    await expect(c2.getByTestId('candidate-reason')).toHaveText('Rejected by a person: probed against base');
    await expect(page.getByTestId('awaiting-banner')).toHaveCount(0);
    await expect(page.getByTestId('run-tab-badge')).toHaveCount(0);
    await expect(page).toHaveTitle('GateLab · prepared-confirm');

    // Both injections end rejected by the gate; serving never moves for them.
    await expect(page.getByTestId('injection-request-i1')).toHaveAttribute('data-state', 'staged', { timeout: 5 * 60_000 });
    await expect(page.getByTestId('injection-request-i2')).toHaveAttribute('data-state', 'staged', { timeout: 60_000 });
    for (const id of ['i1', 'i2']) {
      const candidate = (await page.getByTestId(`injection-request-${id}`).getAttribute('data-candidate')) ?? '';
      const rowOf = page.getByTestId(`injection-${candidate}`);
      await expect(rowOf).toHaveAttribute('data-state', 'rejected', { timeout: 3 * 60_000 });
      // What served when it was staged still served when the gate rejected it.
      const before = (await rowOf.locator('td').nth(2).textContent()) ?? '';
      await expect(rowOf.getByTestId('serving-after')).toHaveText(`${before} unchanged ✓`);
    }
    await expect(page.getByTestId('serving-version')).toHaveText(version);
    await shootBothThemes(page, 'web-injections', async () => {
      await page.getByTestId('inject-card').scrollIntoViewIfNeeded();
    });

    // Rollback asks first, in a dialog naming the version, its sha256 and the evidence it was promoted on.
    await expect(page.getByTestId('rollback-target')).toHaveValue('base');
    await page.getByTestId('rollback-button').click();
    const dialog = page.getByTestId('rollback-dialog');
    await expect(dialog).toHaveAttribute('data-target', 'base');
    await expect(dialog.getByTestId('rollback-evidence')).toContainText('The base model the run started on');
    await dialog.getByTestId('rollback-cancel').click();
    await expect(dialog).toHaveCount(0);
    await expect(page.getByTestId('serving-version')).toHaveText(version);
    await page.getByTestId('rollback-button').click();
    await page.getByTestId('rollback-confirm').click();
    await expect(page.getByTestId('serving-version')).toHaveText('base');
    await expect(page.getByTestId('last-decision')).toHaveText(`Rollback: serving ${version} → base`);

    // Forward again, to the promoted version: the dialog shows what it was promoted on.
    await page.getByTestId('rollback-target').selectOption(version);
    await page.getByTestId('rollback-button').click();
    await expect(dialog).toHaveAttribute('data-target', version);
    await expect(dialog.getByTestId('rollback-dialog-version')).toHaveText(version);
    const sha = (await dialog.getByTestId('rollback-dialog-sha').textContent()) ?? '';
    expect(sha).toMatch(new RegExp(`^${version.slice(3)}[0-9a-f]{56}$`));
    await expect(dialog.getByTestId('rollback-evidence')).toContainText('Promoted as c1');
    await expect(dialog.getByTestId('rollback-evidence')).toContainText('confirmed by person');
    await expect(dialog.getByTestId('rollback-round')).toHaveCount(3);
    await shootBothThemes(page, 'web-rollback-dialog');
    await page.getByTestId('rollback-confirm').click();
    await expect(page.getByTestId('serving-version')).toHaveText(version);
    await expect(page.getByTestId('serving-card')).toHaveAttribute('data-sha256', sha);
    await expect(page.getByTestId('serving-history').locator('li')).toHaveCount(3);
    await shootWhole(page, 'web-gate-decided.png', 2600);
    expect(problems).toEqual([]);
  });

  test('a real run of the embedded recipe with every bad kind injected: the requests queue, the page stays live, pause / stop / resume, all six rejected with serving unchanged; its curve.csv and gate.csv open in the viewer', async ({
    page,
    runLab,
  }) => {
    test.setTimeout(20 * 60_000);
    const problems = watchConsole(page);
    await page.setViewportSize(SMALL_WINDOW);
    await page.goto(runLab.url);
    // The lab still shows the run of the test before (the page switches to it once it has
    // fetched the lab's state, so wait for that before leaving it); the Start page is one click away.
    await expect(page.getByTestId('run-view')).toBeVisible();
    await page.getByTestId('tab-start').click();
    await expect(page.getByTestId('start-view')).toBeVisible();

    // The recipes: the embedded default preselected; the Reef 7-GPU recipe listed, with why it cannot run here.
    const embedded = page.getByTestId('recipe-embedded-gsm8k-style');
    await expect(embedded).toHaveAttribute('data-runnable', 'yes');
    await expect(embedded.locator('input[type="radio"]')).toBeChecked();
    const reef = page.getByTestId('recipe-reef-openclawrl-7gpu');
    await expect(reef).toHaveAttribute('data-runnable', 'no');
    await expect(reef.locator('input[type="radio"]')).toBeDisabled();
    await expect(page.getByTestId('recipe-reasons-reef-openclawrl-7gpu')).toContainText('GPU');
    await expect(page.getByTestId('confirm-manual')).toHaveAttribute('aria-pressed', 'true');

    // A short run of the real recipe: its first 3 of 72 sessions (the core's --sessions override).
    await page.getByTestId('start-sessions').fill('3');
    await page.getByTestId('start-seed').fill('7');
    await page.getByTestId('start-button').click();
    await expect(page.getByTestId('run-view')).toBeVisible();
    await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'running', { timeout: 120_000 });
    await expect(page.getByTestId('live-run-title')).toContainText('embedded-gsm8k-style');
    const runId = (await page.getByTestId('run-view').getAttribute('data-run-id')) ?? '';

    // Every bad kind, asked for at once while sessions run: the first builds, the rest wait in line, visibly.
    for (const kind of BAD_CANDIDATE_KINDS) await inject(page, kind);
    await expect(page.getByTestId('injection-request-i1')).toHaveAttribute('data-state', /building|staged/);
    await expect(page.getByTestId('injection-requests').locator('li')).toHaveCount(6);
    // The page stays live meanwhile: Pause and Stop answer.
    await expect(page.getByTestId('pause-button')).toBeEnabled();
    await expect(page.getByTestId('stop-button')).toBeEnabled();
    await expect(page.getByTestId('progress-gate')).toContainText('injections: building i');

    // Pause: the session in progress finishes, then no session runs while the gate goes on deciding.
    await page.getByTestId('pause-button').click();
    await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'paused', { timeout: 5 * 60_000 });
    await expect(page.getByTestId('progress-eta')).toHaveText('paused');
    const atPause = await completed(page);
    await shootBothThemes(page, 'web-run-paused');

    // All six end rejected by the gate, serving unchanged, while the run is paused.
    const injected = page.locator('[data-testid^="injection-c"]');
    await expect(injected).toHaveCount(6, { timeout: 10 * 60_000 });
    for (const row of await injected.all()) {
      await expect(row).toHaveAttribute('data-state', 'rejected', { timeout: 5 * 60_000 });
      await expect(row.getByTestId('serving-after')).toHaveText('base unchanged ✓');
    }
    expect(await completed(page)).toBe(atPause);
    await expect(page.getByTestId('serving-version')).toHaveText('base');

    // Stop while paused; Resume continues where the journal ends, and the run completes.
    await page.getByTestId('stop-button').click();
    await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'stopped', { timeout: 2 * 60_000 });
    await page.getByTestId('resume-button').click();
    await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', /running|completed/, { timeout: 120_000 });
    await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'completed', { timeout: 8 * 60_000 });
    expect(await completed(page)).toBe(3);
    const chart = page.getByTestId('curve-chart');
    await expect(chart).toHaveAttribute('data-points', '3');
    await expect(page.getByTestId('accept-strip').locator('.recharts-bar-rectangle')).toHaveCount(3);
    // At 1280 px nothing on the run page is cut off: the trainer's candidate column, every probe round.
    await page.setViewportSize(SMALL_WINDOW);
    expect(await clippedElements(page)).toEqual([]);
    await shootBothThemes(page, 'web-run-complete');
    await shootWhole(page, 'web-live-run.png');

    // The run list says so.
    await page.getByTestId('tab-start').click();
    await expect(page.getByTestId(`run-folder-${runId}`)).toHaveAttribute('data-status', 'complete');

    // The lab's own files open in the viewer: the four kinds rejected before any probe are "not measured".
    const runDir = join(runLab.runsDir, runId);
    await page.getByTestId('open-run-input').setInputFiles([join(runDir, 'curve.csv'), join(runDir, 'gate.csv')]);
    await expect(page.getByTestId('run-title')).toHaveText('curve.csv + gate.csv');
    await expect(page.getByTestId('curve-chart')).toHaveAttribute('data-points', '3');
    const gate = page.getByTestId('gate-panel');
    expect(Number(await gate.getAttribute('data-steps'))).toBeGreaterThanOrEqual(6);
    await expect(gate.locator('[data-outcome="unmeasured"]')).toHaveCount(4);
    await expect(gate).toContainText('4 before any probe');
    await shootBothThemes(page, 'web-viewer-lab-files', async () => {
      await gate.scrollIntoViewIfNeeded();
    });
    expect(problems).toEqual([]);
  });
});
