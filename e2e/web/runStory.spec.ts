import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { FIXTURE_DIR, REFERENCE_DIR, REFERENCE_ID, SCREENSHOT_DIR } from '../paths';
import { expect, test } from './runLab';
import { watchConsole } from './watchConsole';

// The run's full story on screen (the curve's controls, the comparison of runs,
// the sessions table and the workers panel), through the UI only, at the size
// every screen must read at: 1280×720.
test.use({ labFor: 'runStory', holdRestarts: true, viewport: { width: 1280, height: 720 } });
test.describe.configure({ mode: 'serial' });

/** Clicks `button` and returns the text of the file it offers for download. */
async function download(page: Page, button: Locator): Promise<{ name: string; bytes: Buffer }> {
  const [file] = await Promise.all([page.waitForEvent('download'), button.click()]);
  const path = await file.path();
  return { name: file.suggestedFilename(), bytes: await readFile(path) };
}

/** The x of a session's band centre on a chart of `count` sessions starting at `first`. */
async function sessionX(chart: Locator, session: number, first: number, count: number): Promise<{ x: number; y: number }> {
  const grid = await chart.locator('.recharts-cartesian-grid').boundingBox();
  if (grid === null) throw new Error('no chart grid');
  return { x: grid.x + ((session - first + 0.5) * grid.width) / count, y: grid.y + grid.height / 2 };
}

async function dragAcross(page: Page, chart: Locator, from: number, to: number, first: number, count: number): Promise<void> {
  const a = await sessionX(chart, from, first, count);
  const b = await sessionX(chart, to, first, count);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move(b.x, b.y, { steps: 12 });
  await page.mouse.up();
}

let runId = '';

test.describe("the run's full story in browser mode (Chromium, 1280×720)", () => {
  test('curves as TensorBoard users expect: smoothing with the raw series kept, exact values on hover, zoom and reset, PNG and CSV', async ({
    page,
    runLab,
  }) => {
    const problems = watchConsole(page);
    await page.goto(runLab.url);
    await page.getByTestId('tab-viewer').click();
    await page.getByTestId(`reference-${REFERENCE_ID}`).click();
    const chart = page.getByTestId('curve-chart');
    await expect(chart).toHaveAttribute('data-points', '36');
    await expect(chart).toHaveAttribute('data-smoothing', 'file');
    // Four smoothed lines and, faintly, their four per-session series.
    await expect(chart.locator('.smoothed-series .recharts-line-curve')).toHaveCount(4);
    await expect(chart.locator('.raw-series .recharts-line-curve')).toHaveCount(4);

    // Hover: the exact values of the session under the pointer, as the file has them.
    const reef = readFileSync(join(REFERENCE_DIR, 'curve.csv'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(','));
    const column = (name: string) => reef[0]!.indexOf(name);
    await chart.scrollIntoViewIfNeeded();
    const at5 = await sessionX(chart, 5, 0, 36);
    await page.mouse.move(at5.x, at5.y);
    const tooltip = page.getByTestId('curve-tooltip');
    await expect(tooltip).toHaveAttribute('data-session', '5');
    const exact = await tooltip.locator('tr[data-series="style_clean_rate_10"] td[data-exact]').getAttribute('data-exact');
    expect(Number(exact)).toBe(Number(reef[6]![column('style_clean_rate_10')]));

    // Zoom: drag across sessions 10–20; the verdict strip below follows; Reset restores the range.
    await dragAcross(page, chart, 10, 20, 0, 36);
    await expect(chart).toHaveAttribute('data-zoom', '10-20');
    await expect(chart).toHaveAttribute('data-points', '11');
    await expect(page.getByTestId('accept-strip')).toHaveAttribute('data-points', '11');
    await expect(page.getByTestId('zoom-state')).toHaveText('Sessions 10–20');

    // Another smoothing: the EMA, TensorBoard's; the file's columns stay in the tooltip's raw column and the CSV.
    await page.getByTestId('smoothing-kind').selectOption('ema');
    await expect(chart).toHaveAttribute('data-smoothing', 'ema');
    const card = page.locator('section.card', { has: chart });
    await page.mouse.move(0, 0);
    await card.scrollIntoViewIfNeeded();
    await card.screenshot({ path: join(SCREENSHOT_DIR, 'web-curve-smoothing-zoom.png') });
    const emaCsv = (await download(page, page.getByTestId('export-csv'))).bytes.toString('utf8').trim().split('\n');
    expect(emaCsv[0]).toBe(`${reef[0]!.join(',')},accept_ema0.6,style_clean_ema0.6,bold_ema0.6,list_ema0.6`);
    expect(emaCsv.slice(1).map((line) => line.split(',')[0])).toEqual(['10', '11', '12', '13', '14', '15', '16', '17', '18', '19', '20']);

    await page.getByTestId('zoom-reset').click();
    await expect(chart).toHaveAttribute('data-zoom', 'none');
    await expect(chart).toHaveAttribute('data-points', '36');
    await page.getByTestId('smoothing-kind').selectOption('file');

    // PNG: a real image of the chart with its legend.
    const png = await download(page, page.getByTestId('export-png'));
    expect(png.name).toMatch(/\.png$/);
    expect(png.bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.bytes.readUInt32BE(16)).toBeGreaterThan(1000); // width in pixels (twice the chart's)
    await writeFile(join(SCREENSHOT_DIR, 'web-exported-chart.png'), png.bytes); // to look at

    // The README's picture of the viewer, as it is now.
    await page.setViewportSize({ width: 1280, height: 1500 });
    await page.locator('main.main').evaluate((main) => main.scrollTo(0, 0));
    await page.mouse.move(0, 0);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'readme-curve-viewer.png') });
    await page.setViewportSize({ width: 1280, height: 720 });
    expect(problems).toEqual([]);
  });

  test('a real run: the workers panel (a killed worker shown while its supervisor restarts it), the sessions table, the transcript drawer, the curve exported as curve.csv', async ({
    page,
    runLab,
  }) => {
    test.setTimeout(12 * 60_000);
    const problems = watchConsole(page);
    await page.goto(runLab.url);
    await page.getByTestId('tab-start').click();
    await page.getByTestId('start-sessions').fill('2');
    await page.getByTestId('start-seed').fill('5');
    await page.getByTestId('start-button').click();
    await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'running', { timeout: 120_000 });
    runId = (await page.getByTestId('run-view').getAttribute('data-run-id')) ?? '';
    expect(runId).not.toBe('');

    // Workers: every process the supervisors started, with its role, pid and device.
    const panel = page.getByTestId('workers-panel');
    const serving = panel.getByTestId('worker-serving');
    const probe = panel.getByTestId('worker-probe');
    await expect(serving).toHaveAttribute('data-state', 'running', { timeout: 120_000 });
    await expect(probe).toHaveAttribute('data-state', 'running', { timeout: 120_000 });
    await expect(panel.getByTestId('worker-trainer')).toBeVisible({ timeout: 120_000 });
    await expect(serving).toContainText('CPU · nice 10');
    await expect(probe).toContainText('CPU · nice 0');
    await expect(serving).toContainText(/node engine/);
    const probePid = Number(await probe.getAttribute('data-pid'));
    expect(probePid).toBeGreaterThan(0);

    // Kill the probe engine. Its restart is held by the lab's test barrier, so the panel must show it
    // crashed and restarting — no race with a 250 ms restart — until the test releases it.
    process.kill(probePid, 'SIGKILL');
    await expect(probe).toHaveAttribute('data-state', 'restarting', { timeout: 30_000 });
    await expect(probe).toHaveAttribute('data-restarts', '1');
    await expect(probe).toContainText('killed by SIGKILL');
    await panel.scrollIntoViewIfNeeded();
    await panel.screenshot({ path: join(SCREENSHOT_DIR, 'web-workers-restarting.png') });
    await writeFile(join(runLab.holdDir!, 'release-probe-1'), '');
    await expect(probe).toHaveAttribute('data-state', 'running', { timeout: 120_000 });
    const restartedPid = Number(await probe.getAttribute('data-pid'));
    expect(restartedPid).toBeGreaterThan(0);
    expect(restartedPid).not.toBe(probePid);
    await expect(probe).toHaveAttribute('data-restarts', '1');
    await probe.getByTestId('worker-log-toggle').click();
    await expect(panel.getByTestId('worker-log')).toBeVisible();

    // The sessions table fills as sessions complete: one row each, live.
    const rows = page.getByTestId('sessions-row');
    await expect(rows).toHaveCount(2, { timeout: 8 * 60_000 });
    await page.getByTestId('sort-session').click(); // already ascending: now descending
    await expect(rows.first()).toHaveAttribute('data-session', '1');
    await page.getByTestId('sort-turns').click();
    await expect(page.getByTestId('sessions-table')).toHaveAttribute('data-sort', 'turns:ascending');
    await page.getByTestId('sort-session').click();
    await expect(rows.first()).toHaveAttribute('data-session', '0');
    const table = page.getByTestId('sessions-table-card');
    await table.scrollIntoViewIfNeeded();
    await table.screenshot({ path: join(SCREENSHOT_DIR, 'web-sessions-table.png') });

    // A row opens the whole transcript: every turn, each reply's markers highlighted where they are.
    const first = rows.filter({ has: page.locator('td') }).first();
    const turns = Number(await first.locator('td').nth(7).textContent());
    const markers = Number(await first.locator('td[data-markers]').getAttribute('data-markers'));
    await first.click();
    const drawer = page.getByTestId('transcript-drawer');
    await expect(drawer).toHaveAttribute('data-status', 'loaded');
    await expect(drawer.getByTestId('transcript-turn')).toHaveCount(turns);
    const scored = drawer.locator('[data-testid="transcript-turn"][data-turn="0"]');
    await expect(scored.getByTestId('transcript-reply')).toHaveAttribute('data-markers', String(markers));
    // Every turn's reply is highlighted at its own markers.
    for (const turn of await drawer.getByTestId('transcript-turn').all()) {
      const found = Number(await turn.getAttribute('data-markers'));
      if (found > 0) expect(await turn.locator('mark.hl-marker').count()).toBeGreaterThanOrEqual(1);
      else expect(await turn.locator('mark.hl-marker').count()).toBe(0);
    }
    await expect(drawer.getByTestId('turn-judgment').first()).toBeVisible();
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'web-transcript-drawer.png') });
    await page.keyboard.press('Escape');
    await expect(drawer).toHaveCount(0);

    // Export: the curve's CSV with the file's smoothing is the run's own curve.csv, byte for byte.
    const curveFile = join(runLab.runsDir, runId, 'curve.csv');
    await expect.poll(async () => (await readFile(curveFile, 'utf8')).trim().split('\n').length, { timeout: 60_000 }).toBe(3);
    const exported = await download(page, page.getByTestId('export-csv'));
    expect(exported.name).toBe(`${runId}-curve.csv`);
    expect(exported.bytes.toString('utf8')).toBe(await readFile(curveFile, 'utf8'));
    expect(problems).toEqual([]);
  });

  test("two runs compared: one from the run folders, one picked as a folder with Open run…, each labelled by its run's name", async ({ page, runLab }) => {
    const problems = watchConsole(page);
    await page.goto(runLab.url);
    // The page switches to the lab's run once it has fetched it: wait for that before leaving it.
    await expect(page.getByTestId('run-view')).toBeVisible();
    await page.getByTestId('tab-start').click();
    await expect(page.getByTestId('start-view')).toBeVisible();
    await page.getByTestId(`compare-run-${runId}`).click();
    await expect(page.getByTestId(`compare-run-${runId}`)).toHaveText('✓ compared');
    await page.getByTestId('show-comparison').click();
    const view = page.getByTestId('compare-view');
    await expect(view).toHaveAttribute('data-runs', '1');

    // A run folder picked with the folder picker: its curve.csv, named by the folder.
    await page.getByTestId('compare-folder-input').setInputFiles(join(FIXTURE_DIR, 'adapting-run'));
    await expect(view).toHaveAttribute('data-runs', '2');
    await expect(page.getByTestId('compare-run-0')).toHaveAttribute('data-label', runId);
    await expect(page.getByTestId('compare-run-1')).toHaveAttribute('data-label', 'adapting-run');
    const chart = page.getByTestId('compare-chart');
    await expect(chart).toHaveAttribute('data-runs', '2');
    await expect(chart.locator('.compared-series .recharts-line-curve')).toHaveCount(2);
    // The legend names the runs, never their files.
    await expect(view.locator('.compare-label')).toHaveText([runId, 'adapting-run']);

    await page.getByTestId('compare-series-style_clean').click();
    await expect(chart).toHaveAttribute('data-series', 'style_clean_rate_10');
    await chart.scrollIntoViewIfNeeded();
    const at1 = await sessionX(chart, 1, 0, Number(await chart.getAttribute('data-points')));
    await page.mouse.move(at1.x, at1.y);
    const tooltip = page.getByTestId('compare-tooltip');
    await expect(tooltip).toContainText(runId);
    await expect(tooltip).toContainText('adapting-run');
    await page.mouse.move(0, 0);
    await page.locator('main.main').evaluate((main) => main.scrollTo(0, 0));
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'web-compare-runs.png') });

    const csv = (await download(page, page.getByTestId('export-csv'))).bytes.toString('utf8').split('\n');
    expect(csv[0]).toBe(`session,${runId}:style_clean,${runId}:style_clean_rate_10,adapting-run:style_clean,adapting-run:style_clean_rate_10`);
    // The real run has 2 sessions, the fixture 48: the first 36 are compared, the short run's cells empty after its end.
    expect(csv[3]).toMatch(/^2,,,[01],/);
    expect(problems).toEqual([]);
  });
});
