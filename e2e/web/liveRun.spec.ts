import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { prepareAwaitingConfirmRun, writeDerivedRecipe } from '../../electron/lab/app/testing/preparedRun';
import { REPO_ROOT, SCREENSHOT_DIR } from '../paths';
import { expect, test } from './runLab';
import { watchConsole } from './watchConsole';

const completed = async (page: Page): Promise<number> => Number(await page.getByTestId('session-progress').getAttribute('data-completed'));

/** A screenshot of the whole run page (the main pane scrolls inside the window, so a tall viewport shows all of it). */
async function shoot(page: Page, name: string, height = 2300): Promise<void> {
  await page.setViewportSize({ width: 1440, height });
  await page.mouse.move(0, 0); // no tooltip left open over the charts
  await page.locator('main.main').evaluate((main) => main.scrollTo(0, 0));
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(SCREENSHOT_DIR, name) });
  await page.setViewportSize({ width: 1440, height: 1000 });
}

test.describe.configure({ mode: 'serial' });

test.describe('the run UI in browser mode (Chromium), on the embedded recipe', () => {
  test('candidates awaiting confirmation: the evidence, Reject keeps serving, Confirm promotes, Rollback restores base', async ({ page, runLab }) => {
    test.setTimeout(6 * 60_000);
    const problems = watchConsole(page);
    // The state a short run cannot reach in minutes, prepared by the real gate and probe engine: two
    // no-op adapters (LoRA B = 0) staged through three paired probe rounds each (floors lifted, see preparedRun.ts).
    const recipe = await writeDerivedRecipe(join(REPO_ROOT, 'recipes', 'embedded-gsm8k-style.yaml'), await mkdtemp(join(tmpdir(), 'gatelab-e2e-recipe-')), {
      name: 'embedded-prepared',
      probeProblems: 4,
      floors: { gold_rate: 0, answered_rate: 0 },
    });
    const prepared = await prepareAwaitingConfirmRun(recipe, join(runLab.runsDir, 'prepared-confirm'), { sessions: 2 }, 2);
    expect(prepared.candidates.map((c) => c.state), JSON.stringify(prepared.candidates)).toEqual(['awaiting-confirm', 'awaiting-confirm']);

    await page.goto(runLab.url);
    await expect(page.getByTestId('start-view')).toBeVisible();
    await page.getByTestId('open-run-prepared-confirm').click();
    await expect(page.getByTestId('run-view')).toBeVisible();
    await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'viewing');
    await expect(page.getByTestId('serving-version')).toHaveText('base');

    const c1 = page.getByTestId('candidate-c1');
    const c2 = page.getByTestId('candidate-c2');
    await expect(c1).toHaveAttribute('data-state', 'awaiting-confirm');
    await expect(c2).toHaveAttribute('data-state', 'awaiting-confirm');
    await expect(c1.getByTestId('candidate-state')).toHaveText('awaiting confirmation');
    await expect(c1.locator('[data-step="awaiting-confirm"]')).toHaveAttribute('data-status', 'current');
    for (const round of [1, 2, 3]) await expect(c1.locator(`[data-step="round-${round}"]`)).toHaveAttribute('data-status', 'done');
    // Every gated metric of every round against serving: 4 metrics × 3 rounds, all within their limits.
    await expect(c1.locator('td.check')).toHaveCount(12);
    await expect(c1.locator('td.check[data-ok="yes"]')).toHaveCount(12);

    await c1.getByTestId('show-replies-1').click();
    await expect(page.getByTestId('probe-replies-c1-1').getByTestId('probe-pair')).toHaveCount(4);
    // One candidate's evidence on its own: the rounds against serving and the replies the gate judged
    // (a viewport tall enough that the scrolling main pane holds all of it).
    await page.setViewportSize({ width: 1440, height: 3600 });
    await page.mouse.move(0, 0);
    await c1.screenshot({ path: join(SCREENSHOT_DIR, 'web-gate-awaiting-confirm.png') });
    await page.setViewportSize({ width: 1440, height: 1000 });

    // Reject c2: the gate records the person's reason; serving does not move.
    await c2.locator('.reason-input').fill('same as c1, keep one');
    await c2.getByTestId('reject-button').click();
    await expect(c2).toHaveAttribute('data-state', 'rejected', { timeout: 60_000 });
    await expect(c2.getByTestId('candidate-reason')).toHaveText('Rejected — person: same as c1, keep one');
    await expect(c2.getByTestId('candidate-pointer')).toContainText('(unchanged)');
    await expect(page.getByTestId('serving-version')).toHaveText('base');
    await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'gate-only');

    // Confirm c1: the gate re-verifies and promotes it; serving names its version.
    await c1.getByTestId('confirm-button').click();
    await expect(c1).toHaveAttribute('data-state', 'promoted', { timeout: 60_000 });
    const version = (await c1.locator('h4 code').textContent()) ?? '';
    expect(version).toMatch(/^v0-[0-9a-f]{8}$/);
    await expect(page.getByTestId('serving-version')).toHaveText(version);
    await expect(page.getByTestId('last-decision')).toHaveText(`Confirmed c1: serving base → ${version}`);
    await expect(page.getByTestId('serving-history').locator('li')).toHaveCount(1);

    await expect(page.getByTestId('rollback-target')).toHaveValue('base');
    await page.getByTestId('rollback-button').click();
    await expect(page.getByTestId('serving-version')).toHaveText('base');
    await expect(page.getByTestId('last-decision')).toHaveText(`Rollback: serving ${version} → base`);
    await expect(page.getByTestId('serving-history').locator('li')).toHaveCount(2);
    await shoot(page, 'web-gate-decided.png', 1400);
    expect(problems).toEqual([]);
  });

  test('starts the embedded recipe: sessions stream, the curve grows, an injected bad candidate is rejected with serving unchanged, stop and resume', async ({ page, runLab }) => {
    test.setTimeout(10 * 60_000);
    const problems = watchConsole(page);
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

    // A short run of the real recipe: the first 4 of its 72 sessions (the core's --sessions override);
    // stopped after the first session, resumed, and left once it has moved on (the lab is stopped with the worker).
    await page.getByTestId('start-sessions').fill('4');
    await page.getByTestId('start-seed').fill('7');
    await page.getByTestId('start-button').click();
    await expect(page.getByTestId('run-view')).toBeVisible();
    await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'running', { timeout: 120_000 });
    await expect(page.getByTestId('live-run-title')).toContainText('embedded-gsm8k-style');

    // A bad candidate, injected while sessions run: it goes through the gate and ends rejected; serving never moves.
    await page.getByTestId('inject-kind').selectOption('nan-inf');
    await page.getByTestId('inject-button').click();
    const injected = page.getByTestId('injection-c1');
    await expect(injected).toHaveAttribute('data-state', 'rejected', { timeout: 120_000 });
    await expect(injected.getByTestId('serving-after')).toHaveText('base unchanged ✓');
    const rejected = page.getByTestId('candidate-c1');
    await expect(rejected.getByTestId('candidate-reason')).toContainText('non-finite');
    await expect(rejected.locator('[data-step="verified"]')).toHaveAttribute('data-status', 'failed');
    await expect(page.getByTestId('serving-version')).toHaveText('base');

    // Sessions stream in: the first reply with its verdict, the curve and the strip grow.
    await expect.poll(() => completed(page), { timeout: 5 * 60_000, intervals: [2000] }).toBeGreaterThanOrEqual(1);
    await expect(page.getByTestId('first-reply')).toBeVisible();
    await expect(page.getByTestId('verdict-chips')).toBeVisible();
    const chart = page.getByTestId('curve-chart');
    await expect(chart).toHaveAttribute('data-span', '4');
    const first = Number(await chart.getAttribute('data-points'));
    expect(first).toBeGreaterThanOrEqual(1);

    // Stop after the session in progress; the run can be resumed where its journal ends.
    await page.getByTestId('stop-button').click();
    await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'stopped', { timeout: 5 * 60_000 });
    const atStop = await completed(page);
    expect(atStop).toBeGreaterThanOrEqual(1);
    expect(atStop).toBeLessThan(4);
    await expect(page.getByTestId('resume-button')).toBeVisible();
    await page.getByTestId('resume-button').click();
    await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'running', { timeout: 120_000 });
    // The curve and the verdict strip grow with the sessions: one point and one cell per completed session.
    const strip = page.getByTestId('accept-strip').locator('.recharts-bar-rectangle');
    const drawn = async (): Promise<number> => {
      const done = await completed(page);
      const points = Number(await chart.getAttribute('data-points'));
      return points === done && (await strip.count()) === done ? done : -1;
    };
    await expect.poll(drawn, { timeout: 5 * 60_000, intervals: [2000] }).toBeGreaterThan(atStop);
    expect(Number(await chart.getAttribute('data-points'))).toBeGreaterThan(first);

    // The gate's other candidates (the trainer's) are decided by the gate; if one awaits a person in
    // the time allowed, a person confirms it here (else the prepared-run test above covers Confirm).
    const awaiting = page.locator('[data-testid^="candidate-c"][data-state="awaiting-confirm"]');
    if ((await awaiting.count()) > 0) {
      await awaiting.first().getByTestId('confirm-button').click();
      await expect(page.locator('[data-testid^="candidate-c"][data-state="promoted"]')).toHaveCount(1, { timeout: 60_000 });
    }
    await shoot(page, 'web-live-run.png');
    expect(problems).toEqual([]);
  });
});
