import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { decideAfterLastSession } from '../../src/lab/testing/decidedAfterLastSession';
import { writeDerivedRecipe } from '../../src/lab/testing/preparedRun';
import { FIXTURE_DIR, REFERENCE_ID, REPO_ROOT, SCREENSHOT_DIR } from '../paths';
import { clippedChartTexts, download, dragAcross, pngRightEdgeInk, sessionPoint, svgTextsOutside } from './charts';
import { expect, test } from './runLab';
import { clippedElements, shootBothThemes, SMALL_WINDOW } from './screens';
import { watchConsole } from './watchConsole';

// Curves that never clip, at the smallest window the desktop is built for and at a wider one.
const WIDTHS = [SMALL_WINDOW.width, 1680] as const;
const ADAPTING_CURVE = join(FIXTURE_DIR, 'adapting-run', 'curve.csv');

test.use({ labFor: 'curves', viewport: SMALL_WINDOW });

test.describe('curves that never clip (browser mode, Chromium)', () => {
  test('marker labels near the right edge stay inside the chart, on screen and in the PNG, at 1280 px and wider', async ({ page, runLab }) => {
    const problems = watchConsole(page);
    await page.goto(runLab.url);
    await page.getByTestId('open-run-input').setInputFiles(ADAPTING_CURVE);
    const chart = page.getByTestId('curve-chart');
    await expect(chart).toHaveAttribute('data-adaptation-marker', '20');
    const card = page.locator('section.card', { has: chart });
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: SMALL_WINDOW.height });
      // The published marker (session 14) near the right edge.
      await dragAcross(page, chart, 0, 15, 0, 36);
      await expect(chart).toHaveAttribute('data-zoom', '0-15');
      await expect(chart.locator('[data-marker-label^="Reef published"]')).toBeVisible();
      await expect.poll(() => clippedChartTexts(card), { message: `at ${width} px, zoomed to 0–15` }).toEqual([]);
      await page.getByTestId('zoom-reset').click();
      // This run's adaptation marker (session 20) near the right edge, the published one in view too.
      await dragAcross(page, chart, 5, 21, 0, 36);
      await expect(chart).toHaveAttribute('data-zoom', '5-21');
      await expect(chart.locator('[data-marker-label="This run: adapted @20"]')).toBeVisible();
      await expect.poll(() => clippedChartTexts(card), { message: `at ${width} px, zoomed to 5–21` }).toEqual([]);
      const png = await download(page, page.getByTestId('export-png'));
      const pixels = await pngRightEdgeInk(page, png.bytes);
      expect(pixels.inkRows, `the PNG at ${width} px`).toEqual([]);
      // The SVG export is the document the PNG is drawn from: every text inside it, the PNG at twice its size.
      const svg = await download(page, page.getByTestId('export-svg'));
      expect(svg.name).toBe('curve.csv-curve.svg');
      const document = await svgTextsOutside(page, svg.bytes.toString('utf8'));
      expect(document.outside, `the SVG at ${width} px`).toEqual([]);
      expect(document.texts).toEqual(
        expect.arrayContaining(['This run: adapted @20', 'Accept (rolling 10)', 'Reef gated run · Qwen3.5-9B · 2026-09-14: accept']),
      );
      expect([pixels.width, pixels.height]).toEqual([document.width * 2, document.height * 2]);
      if (width === SMALL_WINDOW.width) {
        await shootBothThemes(page, 'web-curve-markers-right-edge', async () => {
          await card.scrollIntoViewIfNeeded();
        });
      }
      await page.getByTestId('zoom-reset').click();
    }
    expect(problems).toEqual([]);
  });

  test("the Reef overlay stays visible on this run's line at the same value, and the tooltip names it as the legend does; the EMA columns are named for what they are", async ({
    page,
    runLab,
  }) => {
    const problems = watchConsole(page);
    await page.goto(runLab.url);
    await page.getByTestId('open-run-input').setInputFiles(ADAPTING_CURVE);
    const chart = page.getByTestId('curve-chart');
    await expect(chart.locator('.reference-series .recharts-line-curve')).toHaveCount(1);
    // Drawn anew with the reference already loaded (back from another page): the order is the chart's, not the loading's.
    await page.getByTestId('tab-start').click();
    await page.getByTestId('tab-viewer').click();
    await expect(chart).toHaveAttribute('data-overlay', 'on');
    await expect(chart.locator('.reference-series .recharts-line-curve')).toHaveCount(1);
    // Both rates are 0 over the first sessions: the dashed reference is painted over this run's lines, not under them.
    const order = await chart.evaluate((frame) =>
      [...frame.querySelectorAll('path.recharts-line-curve')].map((path) =>
        path.closest('.reference-series') !== null ? 'reference' : path.closest('.smoothed-series') !== null ? 'run' : 'raw',
      ),
    );
    expect(order.lastIndexOf('run')).toBeGreaterThanOrEqual(0);
    expect(order.indexOf('reference')).toBeGreaterThan(order.lastIndexOf('run'));

    // The tooltip names the reference as the legend does.
    const legend = ((await page.locator('.legend-item', { hasText: ': accept' }).textContent()) ?? '').trim();
    expect(legend).toBe('Reef gated run · Qwen3.5-9B · 2026-09-14: accept');
    await chart.scrollIntoViewIfNeeded();
    const at5 = await sessionPoint(chart, 5, 0, 36);
    await page.mouse.move(at5.x, at5.y);
    const tooltip = page.getByTestId('curve-tooltip');
    await expect(tooltip).toHaveAttribute('data-session', '5');
    await expect(tooltip.getByTestId('tooltip-reference')).toContainText(legend);
    await page.mouse.move(0, 0);

    // The EMA of the per-session values, named so: not "bold_rate_10_ema0.6".
    await page.getByTestId('smoothing-kind').selectOption('ema');
    const header = (await download(page, page.getByTestId('export-csv'))).bytes.toString('utf8').split('\n')[0]!;
    expect(header.endsWith(',style_clean_rate_10,accept_ema0.6,style_clean_ema0.6,bold_ema0.6,list_ema0.6')).toBe(true);
    await page.getByTestId('smoothing-kind').selectOption('file');
    expect(problems).toEqual([]);
  });

  test('the x range (from–to session) and the y range (min–max) are typed in, and Reset restores both', async ({ page, runLab }) => {
    const problems = watchConsole(page);
    await page.goto(runLab.url);
    await page.getByTestId('open-run-input').setInputFiles(ADAPTING_CURVE);
    const chart = page.getByTestId('curve-chart');
    await expect(chart).toHaveAttribute('data-points', '36');
    await page.getByTestId('range-from').fill('10');
    await page.getByTestId('range-to').fill('20');
    await expect(chart).toHaveAttribute('data-zoom', '10-20');
    await expect(chart).toHaveAttribute('data-points', '11');
    await expect(page.getByTestId('accept-strip')).toHaveAttribute('data-points', '11');
    await page.getByTestId('range-ymin').fill('0');
    await page.getByTestId('range-ymax').fill('50');
    await expect(chart).toHaveAttribute('data-y-range', '0-50');
    await expect(chart.locator('svg text', { hasText: /^50%$/ })).toHaveCount(1);
    await expect(chart.locator('svg text', { hasText: /^100%$/ })).toHaveCount(0);
    // A range that is no range is refused, with the reason, and the chart keeps the last good one.
    await page.getByTestId('range-ymin').fill('60');
    await expect(page.getByTestId('range-problem')).toContainText('below');
    await expect(chart).toHaveAttribute('data-y-range', '0-50');
    await expect.poll(() => clippedChartTexts(page.locator('section.card', { has: chart }))).toEqual([]);
    await page.getByTestId('range-reset').click();
    await expect(chart).toHaveAttribute('data-zoom', 'none');
    await expect(chart).toHaveAttribute('data-y-range', '0-100');
    await expect(chart).toHaveAttribute('data-points', '36');
    await expect(page.getByTestId('range-from')).toHaveValue('0');
    await expect(page.getByTestId('range-to')).toHaveValue('35');
    expect(problems).toEqual([]);
  });
});

test.describe('a run whose serving moved after its last session (browser mode, Chromium)', () => {
  const RUN_ID = 'late-decisions';

  test.beforeAll(async ({ runLab }) => {
    test.setTimeout(6 * 60_000);
    // Two real sessions of the embedded recipe (probing 4 problems, floors lifted so a no-op candidate passes)…
    const recipe = await writeDerivedRecipe(join(REPO_ROOT, 'recipes', 'embedded-gsm8k-style.yaml'), await mkdtemp(join(tmpdir(), 'gatelab-e2e-recipe-')), {
      name: 'embedded-late',
      probeProblems: 4,
      floors: { gold_rate: 0, answered_rate: 0 },
    });
    const runDir = join(runLab.runsDir, RUN_ID);
    await promisify(execFile)(
      process.execPath,
      [join(REPO_ROOT, 'bin', 'gatelab.js'), 'run', '--recipe', recipe, '--seed', '3', '--sessions', '2', '--confirm', 'manual', '--out', runDir],
      {
        cwd: REPO_ROOT,
      },
    );
    // …then, with no session after them, a promotion and a rollback.
    await decideAfterLastSession(runDir);
  });

  test('a promotion and a rollback after the last session are drawn and labelled, inside the chart, on screen and in the PNG', async ({ page, runLab }) => {
    const problems = watchConsole(page);
    await page.goto(runLab.url);
    await page.getByTestId('tab-start').click();
    await page.getByTestId(`open-run-${RUN_ID}`).click();
    await expect(page.getByTestId('run-view')).toHaveAttribute('data-run-id', RUN_ID);
    const chart = page.getByTestId('curve-chart');
    await expect(chart).toHaveAttribute('data-points', '2');
    await expect(chart).toHaveAttribute('data-events', '2');
    await expect(chart.locator('[data-marker-label^="↑ "]')).toBeVisible();
    await expect(chart.locator('[data-marker-label^="↶ base"]')).toBeVisible();
    const card = page.getByTestId('live-curve-card');
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: SMALL_WINDOW.height });
      await card.scrollIntoViewIfNeeded();
      await expect.poll(() => clippedChartTexts(card), { message: `at ${width} px` }).toEqual([]);
      expect(await clippedElements(page), `the run page at ${width} px`).toEqual([]);
      const png = await download(page, card.getByTestId('export-png'));
      expect((await pngRightEdgeInk(page, png.bytes)).inkRows, `the PNG at ${width} px`).toEqual([]);
      await writeFile(join(SCREENSHOT_DIR, `web-exported-run-curve-${width}.png`), png.bytes); // to look at
    }
    await shootBothThemes(page, 'web-run-curve-late-decisions', async () => {
      await card.scrollIntoViewIfNeeded();
    });
    expect(problems).toEqual([]);
  });

  test('compare: four runs (one picked as a folder, with its journal) overlaid and side by side per metric, a table of the runs, nothing cut in the view or the PNG', async ({
    page,
    runLab,
  }) => {
    const problems = watchConsole(page);
    await page.goto(runLab.url);
    await page.getByTestId('tab-viewer').click();
    await page.getByTestId(`reference-${REFERENCE_ID}`).click();
    await page.getByTestId('compare-start').click();
    const view = page.getByTestId('compare-view');
    await page.getByTestId('compare-folder-input').setInputFiles(join(FIXTURE_DIR, 'adapting-run'));
    await expect(view).toHaveAttribute('data-runs', '2');
    await page.getByTestId('compare-path').fill(join(runLab.runsDir, RUN_ID));
    await page.getByRole('button', { name: 'Add path' }).click();
    await expect(view).toHaveAttribute('data-runs', '3');
    // The same run folder picked with the folder picker: its journal travels with its curve.
    await page.getByTestId('compare-folder-input').setInputFiles(join(runLab.runsDir, RUN_ID));
    await expect(view).toHaveAttribute('data-runs', '4');
    await expect(view.locator('.compare-label')).toHaveText(['Reef gated run · Qwen3.5-9B · 2026-09-14', 'adapting-run', RUN_ID, `${RUN_ID} (2)`]);

    // Overlaid: one chart, every run; its PNG keeps the whole title and every legend entry.
    const overlaid = page.getByTestId('compare-chart');
    await expect(overlaid).toHaveCount(1);
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: SMALL_WINDOW.height });
      await expect.poll(() => clippedChartTexts(view), { message: `at ${width} px` }).toEqual([]);
      expect(await clippedElements(page), `the comparison at ${width} px`).toEqual([]);
      const png = await download(page, view.getByTestId('export-png'));
      expect((await pngRightEdgeInk(page, png.bytes)).inkRows, `the compare PNG at ${width} px`).toEqual([]);
      await writeFile(join(SCREENSHOT_DIR, `web-exported-compare-${width}.png`), png.bytes); // to look at
      // Its title whole and all three runs in its legend.
      const document = await svgTextsOutside(page, (await download(page, view.getByTestId('export-svg'))).bytes.toString('utf8'));
      expect(document.outside, `the compare SVG at ${width} px`).toEqual([]);
      expect(document.texts).toEqual(expect.arrayContaining(['Reef gated run · Qwen3.5-9B · 2026-09-14', 'adapting-run', RUN_ID, `${RUN_ID} (2)`]));
      expect(document.texts.join(' ')).toContain("smoothing: rolling 10 (curve.csv's columns)");
    }
    await page.setViewportSize(SMALL_WINDOW);

    // The table of the runs: recipe, seed, arm (from the run's journal; "—" for a curve without one), adaptation, accepted.
    const rows = page.getByTestId('compare-table').locator('tbody tr');
    await expect(rows).toHaveCount(4);
    const cells = async (i: number) => rows.nth(i).locator('td').allTextContents();
    expect(await cells(0)).toEqual(['Reef gated run · Qwen3.5-9B · 2026-09-14', '—', '—', '—', 'never', '2 / 72']);
    expect(await cells(1)).toEqual(['adapting-run', '—', '—', '—', '20', '25 / 48']);
    const late = await cells(2);
    expect(late.slice(0, 4)).toEqual([RUN_ID, 'embedded-late', '3', 'trained']);
    expect(late[5]).toMatch(/^[0-2] \/ 2$/);
    expect(await cells(3)).toEqual([`${RUN_ID} (2)`, ...late.slice(1)]);
    await shootBothThemes(page, 'web-compare-overlaid');

    // Side by side per metric: one chart per rate, each with every run.
    await page.getByTestId('compare-layout-per-metric').click();
    const charts = page.getByTestId('compare-chart');
    await expect(charts).toHaveCount(4);
    for (const chart of await charts.all()) await expect(chart).toHaveAttribute('data-runs', '4');
    await expect(charts.nth(0)).toHaveAttribute('data-series', 'accept_rate_10');
    await expect(charts.nth(3)).toHaveAttribute('data-series', 'list_rate_10');
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: SMALL_WINDOW.height });
      await expect.poll(() => clippedChartTexts(view), { message: `per metric at ${width} px` }).toEqual([]);
      expect(await clippedElements(page), `the comparison per metric at ${width} px`).toEqual([]);
      const png = await download(page, view.getByTestId('export-png').first());
      expect((await pngRightEdgeInk(page, png.bytes)).inkRows, `a per-metric PNG at ${width} px`).toEqual([]);
    }
    await shootBothThemes(page, 'web-compare-per-metric');
    await page.getByTestId('compare-layout-overlaid').click();
    await expect(charts).toHaveCount(1);
    expect(problems).toEqual([]);
  });
});
