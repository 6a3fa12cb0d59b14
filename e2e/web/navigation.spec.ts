import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { prepareAwaitingConfirmRun } from '../../src/lab/testing/preparedRun';
import { writePreparedEmbeddedRecipe } from './preparedRecipe';
import { SCREENSHOT_DIR } from '../paths';
import { expect, test } from './runLab';
import { clippedElements, shootBothThemes, SMALL_WINDOW } from './screens';
import { watchConsole } from './watchConsole';

// Finding your way in the desktop at the smallest window it is built for
// (1280×720): the Start page's button without scrolling, a run page that
// opens at its top with a header that stays in view, and a candidate waiting
// in any run the lab follows counted wherever you are, one click away.
test.use({ labFor: 'navigation', viewport: SMALL_WINDOW });
test.describe.configure({ mode: 'serial' });

const completed = async (page: Page): Promise<number> => Number(await page.getByTestId('session-progress').getAttribute('data-completed'));
const mainScrollTop = (page: Page): Promise<number> => page.locator('main.main').evaluate((main) => main.scrollTop);

/** "12 s" / "2 min 05 s" / "1 h 03 min" → seconds. */
function seconds(text: string): number {
  const h = /(\d+) h (\d+) min/.exec(text);
  if (h) return Number(h[1]) * 3600 + Number(h[2]) * 60;
  const m = /(\d+) min (\d+) s/.exec(text);
  if (m) return Number(m[1]) * 60 + Number(m[2]);
  const s = /(\d+) s/.exec(text);
  if (s) return Number(s[1]);
  throw new Error(`not a duration: ${text}`);
}

type JournalLine = { type: string; at: string; session?: number };
async function journal(runDir: string): Promise<JournalLine[]> {
  const text = await readFile(join(runDir, 'journal.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as JournalLine);
}

/** Seconds between consecutive session-completed events, each labelled with the session that ended it. */
function sessionGaps(events: readonly JournalLine[]): { session: number; seconds: number }[] {
  const done = events.filter((e) => e.type === 'session-completed');
  return done.slice(1).map((e, i) => ({ session: e.session ?? -1, seconds: (Date.parse(e.at) - Date.parse(done[i]!.at)) / 1000 }));
}

test.describe('navigation at 1280×720 in browser mode (Chromium)', () => {
  test('the Start page: the runnable recipe and Start run in view without scrolling, in both themes; a recipe that cannot run here is one line; a bad folder path is answered beside its input', async ({
    page,
    runLab,
  }) => {
    const problems = watchConsole(page);
    await page.goto(runLab.url);
    await expect(page.getByTestId('start-view')).toBeVisible();
    for (const scheme of ['dark', 'light'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await expect(page.getByTestId('start-button')).toBeInViewport({ ratio: 1 });
      await expect(page.getByTestId('recipe-embedded-gsm8k-style')).toBeInViewport({ ratio: 1 });
    }
    // The 7-GPU recipe: one line with its main reason; every reason on demand.
    const reef = page.getByTestId('recipe-reef-openclawrl-7gpu');
    await expect(reef.getByTestId('recipe-main-reason')).toContainText('GPU');
    await expect(page.getByTestId('recipe-reasons-reef-openclawrl-7gpu')).toBeHidden();
    await reef.getByTestId('recipe-details-toggle').click();
    await expect(page.getByTestId('recipe-reasons-reef-openclawrl-7gpu')).toBeVisible();
    await reef.getByTestId('recipe-details-toggle').click();
    await expect(page.getByTestId('recipe-reasons-reef-openclawrl-7gpu')).toBeHidden();
    expect(await clippedElements(page)).toEqual([]);
    await shootBothThemes(page, 'web-start-top');
    expect(problems).toEqual([]);

    // A folder that is not a run: the answer stands beside the path, not in the "Start a run" card.
    await page.getByTestId('open-folder-path').fill('/no/such/run-folder');
    await page.getByTestId('open-folder-button').click();
    await expect(page.getByTestId('open-folder-problem')).toContainText('/no/such/run-folder');
    await expect(page.getByTestId('launch-card').getByRole('alert')).toHaveCount(0);
    await expect(page.getByTestId('launch-problem')).toHaveCount(0);
    // The browser reports the lab's answer (404: no such run folder) itself; nothing else went wrong.
    expect(problems.filter((p) => !p.includes('status of 404'))).toEqual([]);
    await shootBothThemes(page, 'web-start-open-folder-problem', async () => {
      await page.getByTestId('open-folder-problem').scrollIntoViewIfNeeded();
    });
  });

  test('a candidate waiting in any run counts everywhere: the top bar, the window title, one click to it; the run page opens at its top, its header stays in view; a rejected candidate says what happened to it', async ({
    page,
    runLab,
  }) => {
    test.setTimeout(8 * 60_000);
    const problems = watchConsole(page);
    // Two runs with candidates that passed every probe round (the real gate and probe engine; see preparedRun.ts).
    const recipe = await writePreparedEmbeddedRecipe();
    const a = await prepareAwaitingConfirmRun(recipe, join(runLab.runsDir, 'prepared-a'), { sessions: 2 }, 1);
    const b = await prepareAwaitingConfirmRun(recipe, join(runLab.runsDir, 'prepared-b'), { sessions: 2 }, 2);
    expect([...a.candidates, ...b.candidates].map((c) => c.state)).toEqual(['awaiting-confirm', 'awaiting-confirm', 'awaiting-confirm']);

    await page.goto(runLab.url);
    await expect(page.getByTestId('start-view')).toBeVisible();
    // On the Start page already: every waiting candidate of every run, in the top bar and the title.
    const count = page.getByTestId('awaiting-count');
    await expect(count).toHaveAttribute('data-count', '3');
    await expect(page).toHaveTitle('(3) 3 candidates await you · GateLab');

    // Run B from the list; scroll its page down, go back to Start, scroll it down, open run A: A opens at its top.
    await page.getByTestId('open-run-prepared-b').click();
    await expect(page.getByTestId('run-view')).toHaveAttribute('data-run-id', 'prepared-b');
    await page.locator('main.main').evaluate((main) => main.scrollTo(0, main.scrollHeight));
    await page.getByTestId('tab-start').click();
    await page.locator('main.main').evaluate((main) => main.scrollTo(0, main.scrollHeight));
    await page.getByTestId('open-run-prepared-a').click();
    await expect(page.getByTestId('run-view')).toHaveAttribute('data-run-id', 'prepared-a');
    expect(await mainScrollTop(page)).toBe(0);
    await expect(page.getByTestId('awaiting-banner')).toHaveAttribute('data-count', '1');
    // B's two still count, though A is on screen.
    await expect(count).toHaveAttribute('data-count', '3');
    await expect(page).toHaveTitle('(3) 3 candidates await you · GateLab');

    // One click from the top bar to B's c2: B opens, c2's evidence and buttons in view.
    await count.click();
    const menu = page.getByTestId('awaiting-menu');
    await expect(menu.getByRole('menuitem')).toHaveCount(3);
    await shootBothThemes(page, 'web-awaiting-menu', async () => {
      if (!(await menu.isVisible())) await count.click();
    });
    if (!(await menu.isVisible())) await count.click();
    await menu.getByTestId('awaiting-item-prepared-b-c2').click();
    await expect(page.getByTestId('run-view')).toHaveAttribute('data-run-id', 'prepared-b');
    await expect(page.getByTestId('candidate-c2').getByTestId('confirm-button')).toBeInViewport();
    await expect(menu).toHaveCount(0);

    // The header stays in view while the page scrolls; the sections are one click away.
    const header = page.getByTestId('run-sticky-header');
    await expect(header).toBeInViewport();
    await page.getByTestId('jump-gate').click();
    await expect(page.getByTestId('section-gate')).toBeInViewport();
    await expect(page.getByTestId('jump-gate')).toHaveAttribute('aria-current', 'location');
    await expect(header).toBeInViewport();
    await expect(header.getByTestId('progress-line')).toBeInViewport();
    await expect(header.getByTestId('header-awaiting')).toContainText('2 await you');
    expect(await clippedElements(page)).toEqual([]);
    await shootBothThemes(page, 'web-run-sticky-gate');
    for (const section of ['overview', 'sessions', 'trainer', 'workers', 'curve', 'gate']) {
      await page.getByTestId(`jump-${section}`).click();
      await expect(page.getByTestId(`section-${section}`)).toBeInViewport();
      await expect(header).toBeInViewport();
    }

    // c1 confirmed; c2, probed against base, rejected by the person: it says so, and what serves now is a separate line.
    const c1 = page.getByTestId('candidate-c1');
    const c2 = page.getByTestId('candidate-c2');
    await c1.getByTestId('confirm-button').click();
    await expect(c1).toHaveAttribute('data-state', 'promoted', { timeout: 60_000 });
    const version = (await c1.locator('h4 code').textContent()) ?? '';
    await expect(c1.getByTestId('candidate-outcome')).toContainText('Promoted, confirmed by a person');
    await c2.locator('.reason-input').fill('probed against base');
    await c2.getByTestId('reject-button').click();
    await expect(c2).toHaveAttribute('data-state', 'rejected', { timeout: 60_000 });
    const outcome = c2.getByTestId('candidate-outcome');
    await expect(outcome).toContainText('Rejected by a person: probed against base');
    await expect(outcome).not.toContainText('promoted');
    await expect(c2.getByTestId('candidate-serving-now')).toHaveText(`serving now: ${version}`);
    await c2.scrollIntoViewIfNeeded();
    await shootBothThemes(page, 'web-candidate-rejected-outcome', async () => {
      await c2.scrollIntoViewIfNeeded();
    });

    // One waits now, in A: counted in the top bar and the title while B is on screen.
    await expect(count).toHaveAttribute('data-count', '1');
    await expect(page).toHaveTitle('(1) c1 awaits you in prepared-a · GateLab');
    await count.click();
    await menu.getByTestId('awaiting-item-prepared-a-c1').click();
    await expect(page.getByTestId('run-view')).toHaveAttribute('data-run-id', 'prepared-a');
    await expect(page.getByTestId('candidate-c1').getByTestId('confirm-button')).toBeInViewport();
    expect(problems).toEqual([]);
  });

  test("a real run: the blank seed names the folder by the seed that ran; the ETA leaves a pause out; a finished run's Elapsed stays put and its button says Open", async ({
    page,
    runLab,
  }) => {
    test.setTimeout(15 * 60_000);
    const problems = watchConsole(page);
    // A test before in this lab left a run on screen: the page switches to it once it has the lab's state; wait for that.
    const runBefore = (await readdir(runLab.runsDir)).length > 0;
    await page.goto(runLab.url);
    await expect(page.getByTestId(runBefore ? 'run-view' : 'start-view')).toBeVisible();
    await page.getByTestId('tab-start').click();
    await page.getByTestId('start-sessions').fill('6');
    await page.getByTestId('start-seed').fill('');
    await page.getByTestId('start-button').click();
    await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'running', { timeout: 120_000 });
    const runId = (await page.getByTestId('run-view').getAttribute('data-run-id')) ?? '';
    // The recipe's seed is 1: the folder says so.
    expect.soft(runId).toMatch(/^embedded-gsm8k-style-seed1-/);
    const runDir = join(runLab.runsDir, runId);

    // Pause after two sessions, and hold the pause a while.
    await expect.poll(() => completed(page), { timeout: 5 * 60_000 }).toBeGreaterThanOrEqual(2);
    await page.getByTestId('pause-button').click();
    await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'paused', { timeout: 5 * 60_000 });
    // The run paused before the page said so, and continues after Resume is pressed: the pause is at least this long.
    const pausedAt = Date.now();
    const holdMs = 15_000;
    await expect.poll(() => Date.now() - pausedAt, { timeout: holdMs + 30_000, intervals: [500] }).toBeGreaterThan(holdMs);
    const pauseSeconds = (Date.now() - pausedAt) / 1000;
    await page.getByTestId('resume-button').click();
    await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'completed', { timeout: 8 * 60_000 });

    // The ETA's seconds per session: the mean of the sessions after the first (engines starting), the pause left out.
    const events = await journal(runDir);
    const gaps = sessionGaps(events).map((g) => g.seconds);
    const withoutPause = (gaps.reduce((a, b) => a + b, 0) - pauseSeconds) / gaps.length;
    const etaTitle = (await page.getByTestId('progress-eta').locator('..').getAttribute('title', { timeout: 10_000 })) ?? '';
    const perSession = seconds(/^(.*) per session/.exec(etaTitle)?.[1] ?? etaTitle);
    // Shown in whole seconds; the pause (≥ 15 s over 5 sessions) would add at least 3 s.
    expect
      .soft(perSession, `${etaTitle}; sessions took ${JSON.stringify(gaps)} with a pause of at least ${pauseSeconds} s`)
      .toBeLessThanOrEqual(withoutPause + 1);

    // Elapsed is the run's session time: a decision after the run ended does not add to it.
    const elapsed = (await page.getByTestId('progress-elapsed').textContent()) ?? '';
    const completedAt = Date.parse(events.find((e) => e.type === 'run-completed')?.at ?? '');
    await expect.poll(() => Date.now() - completedAt, { timeout: 30_000, intervals: [500] }).toBeGreaterThan(3000);
    await page.getByTestId('inject-kind').selectOption('nan-inf');
    await page.getByTestId('inject-button').click();
    await expect(page.locator('[data-testid^="injection-c"]')).toHaveAttribute('data-state', 'rejected', { timeout: 3 * 60_000 });
    await expect.soft(page.getByTestId('progress-elapsed')).toHaveText(elapsed);

    // A finished run is opened, not watched.
    await page.getByTestId('tab-start').click();
    await expect(page.getByTestId(`run-folder-${runId}`)).toHaveAttribute('data-status', 'complete');
    await expect.soft(page.getByTestId(`open-run-${runId}`)).toHaveText('Open');
    await expect(page.getByTestId('start-button')).toBeInViewport({ ratio: 1 });

    // The README's pictures of the two screens.
    await page.emulateMedia({ colorScheme: 'light' });
    await page.mouse.move(0, 0);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'readme-start.png') });
    await page.getByTestId(`open-run-${runId}`).click();
    await expect(page.getByTestId('run-view')).toHaveAttribute('data-run-id', runId);
    await page.getByTestId('jump-overview').click({ timeout: 10_000 });
    await page.mouse.move(0, 0);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'readme-run-view.png') });
    await shootBothThemes(page, 'web-run-finished-top');
    expect(problems).toEqual([]);
  });
});
