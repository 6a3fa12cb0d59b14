import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { FIXTURE_DIR, REFERENCE_DIR, REFERENCE_ID, SCREENSHOT_DIR } from '../paths';
import { expect, test } from './labServer';
import { watchConsole } from './watchConsole';

/** The viewer's page (the window opens on Start; the viewer's sidebar lists the references). */
async function openViewer(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.getByTestId('tab-viewer').click();
  await expect(page.getByTestId('empty-view')).toBeVisible();
}

/** The number of vertices of each drawn rate line (linear paths: one M or L per point); the faint per-session lines aside. */
async function lineVertexCounts(page: Page): Promise<number[]> {
  const paths = await page
    .getByTestId('curve-chart')
    .locator('.smoothed-series .recharts-line-curve')
    .evaluateAll((elements) => elements.map((element) => element.getAttribute('d') ?? ''));
  return paths.map((d) => d.match(/[ML]/g)?.length ?? 0);
}

test.describe('curve viewer in browser mode (Chromium)', () => {
  test('opens the Reef reference: 36 sessions by default, the session-14 marker, no adaptation marker', async ({ page, lab }) => {
    const problems = watchConsole(page);
    await page.goto(lab.url);
    await expect(page.getByTestId('mode-badge')).toContainText('Browser mode');
    // The Start page shows its own content only: the viewer's empty state and sidebar are the viewer's.
    await expect(page.getByTestId('start-view')).toBeVisible();
    await expect(page.getByTestId('empty-view')).toHaveCount(0);
    await expect(page.getByTestId(`reference-${REFERENCE_ID}`)).toHaveCount(0);
    await page.getByTestId('tab-viewer').click();
    await expect(page.getByTestId('empty-view')).toBeVisible();

    await page.getByTestId(`reference-${REFERENCE_ID}`).click();
    await expect(page.getByTestId('run-title')).toHaveText('Reef gated run · Qwen3.5-9B · 2026-09-14');

    const chart = page.getByTestId('curve-chart');
    await expect(chart).toHaveAttribute('data-points', '36');
    await expect(chart).toHaveAttribute('data-first-session', '0');
    await expect(chart).toHaveAttribute('data-last-session', '35');
    await expect(chart).toHaveAttribute('data-published-marker', '14');
    await expect(chart).toHaveAttribute('data-adaptation-marker', 'none');
    // The drawn SVG: four rate lines, one reference line labelled with the published result.
    await expect(chart.locator('.smoothed-series .recharts-line-curve')).toHaveCount(4);
    await expect(chart.locator('.recharts-reference-line')).toHaveCount(1);
    await expect(chart.locator('[data-marker-label="Reef published (Qwen3-4B, no gate): adapted @14"]')).toBeVisible();
    // Each line passes through one point per session: every path has 36 vertices.
    expect(await lineVertexCounts(page)).toEqual([36, 36, 36, 36]);

    const strip = page.getByTestId('accept-strip');
    await expect(strip).toHaveAttribute('data-points', '36');
    await expect(strip.locator('.recharts-bar-rectangle')).toHaveCount(36);
    await expect(strip).toHaveAttribute('data-accepted', '0');
    await expect(page.getByTestId('session-row')).toHaveCount(36);
    // The reference reads consistently: each figure says which run and model it belongs to, and why "not reached".
    await expect(page.getByTestId('tile-adaptation')).toContainText('Adaptation (Qwen3.5-9B, gated)Not reached');
    await expect(page.getByTestId('tile-adaptation')).toContainText('(accepted: 61, 66)');
    await expect(page.getByTestId('tile-published')).toContainText('Reef published (Qwen3-4B, no gate)Session 14');
    await expect(page.getByTestId('tile-published')).toContainText('another run (openclawrl)');
    await expect(page.getByTestId('reference-note')).toContainText('never reaches three accepted sessions in a row');
    await expect(page.getByTestId('reference-note')).toContainText('different run from the gated Qwen3.5-9B reference');
    await expect(page.getByTestId('published-facts')).toContainText('Qwen3-4B-Thinking-2507');

    const gate = page.getByTestId('gate-panel');
    await expect(gate).toHaveAttribute('data-steps', '67');
    await expect(gate.locator('circle[data-outcome="select"]')).toHaveCount(20);
    await expect(gate.locator('circle[data-outcome="reject"]')).toHaveCount(47);

    // The main pane scrolls inside the window; a tall viewport shows all of it in one picture.
    await page.setViewportSize({ width: 1440, height: 2300 });
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'web-reef-reference.png') });
    expect(problems).toEqual([]);
  });

  test('shows all 72 sessions on request, with the two accepted sessions', async ({ page, lab }) => {
    await openViewer(page, lab.url);
    await page.getByTestId(`reference-${REFERENCE_ID}`).click();
    await page.getByRole('button', { name: 'All 72 sessions' }).click();
    await expect(page.getByTestId('curve-chart')).toHaveAttribute('data-points', '72');
    expect(await lineVertexCounts(page)).toEqual([72, 72, 72, 72]);
    await expect(page.getByTestId('accept-strip').locator('.recharts-bar-rectangle')).toHaveCount(72);
    await expect(page.getByTestId('accept-strip')).toHaveAttribute('data-accepted', '2');
    await expect(page.getByTestId('session-row')).toHaveCount(72);
    await expect(page.locator('tr.row-accepted td:first-child')).toHaveText(['61', '66']);
  });

  test('Open run… reads a curve.csv with the File API; adaptation and the reference overlay are drawn', async ({ page, lab }) => {
    const problems = watchConsole(page);
    await page.goto(lab.url);
    // Open run… works from any page; the viewer's page shows what it opened.
    await page.getByTestId('open-run-input').setInputFiles(join(FIXTURE_DIR, 'adapting-run', 'curve.csv'));
    await expect(page.getByTestId('run-title')).toHaveText('curve.csv');
    const chart = page.getByTestId('curve-chart');
    await expect(chart).toHaveAttribute('data-adaptation-marker', '20');
    await expect(chart).toHaveAttribute('data-overlay', 'on');
    await expect(chart.locator('.recharts-reference-line')).toHaveCount(2);
    await expect(chart.locator('[data-marker-label="This run: adapted @20"]')).toBeVisible();
    // Four rate lines plus the dashed Reef reference.
    await expect(chart.locator('.smoothed-series .recharts-line-curve, .reference-series .recharts-line-curve')).toHaveCount(5);
    await expect(chart.locator('.recharts-line-curve[stroke-dasharray="6 4"]')).toHaveCount(1);
    await expect(page.getByTestId('tile-adaptation')).toContainText('Session 20');
    await expect(page.getByTestId('gate-panel')).toHaveCount(0);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'web-opened-run-with-overlay.png') });
    expect(problems).toEqual([]);
  });

  test('curve.csv and gate.csv picked together open as one run', async ({ page, lab }) => {
    await page.goto(lab.url);
    await page.getByTestId('open-run-input').setInputFiles([join(REFERENCE_DIR, 'curve.csv'), join(REFERENCE_DIR, 'gate.csv')]);
    await expect(page.getByTestId('run-title')).toHaveText('curve.csv + gate.csv');
    await expect(page.getByTestId('gate-panel')).toHaveAttribute('data-steps', '67');
    await expect(page.getByTestId('curve-chart')).toHaveAttribute('data-points', '36');
  });

  test('a malformed curve.csv gets a message naming line and column, and nothing is drawn', async ({ page, lab }) => {
    await openViewer(page, lab.url);
    await page.getByTestId(`reference-${REFERENCE_ID}`).click();
    await expect(page.getByTestId('curve-chart')).toBeVisible();

    const lines = readFileSync(join(REFERENCE_DIR, 'curve.csv'), 'utf8').split('\n');
    lines[4] = lines[4]!.replace(/^3,0,/, '3,x,');
    await page.getByTestId('open-run-input').setInputFiles({
      name: 'broken-curve.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(lines.join('\n')),
    });
    const error = page.getByTestId('run-error');
    await expect(error).toBeVisible();
    await expect(page.getByTestId('run-error-location')).toHaveText('broken-curve.csv — line 5, column 2 (accept)');
    await expect(page.getByTestId('run-error-message')).toContainText('expected 0 or 1');
    await expect(error.locator('mark')).toHaveText('x');
    await expect(page.getByTestId('curve-chart')).toHaveCount(0);
    await expect(page.getByTestId('session-table')).toHaveCount(0);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'web-malformed-csv.png') });
  });

  test('the page and the API refuse a missing or wrong token', async ({ page, lab }) => {
    const withoutToken = await page.goto(lab.origin + '/');
    expect(withoutToken?.status()).toBe(401);
    await page.goto(lab.url);
    const statuses = await page.evaluate(async (token) => {
      const call = (auth: string | null) =>
        fetch('/api/app.info', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...(auth === null ? {} : { Authorization: `Bearer ${auth}` }) },
          body: '{}',
        }).then((response) => response.status);
      return [await call(null), await call('wrong'), await call(token)];
    }, lab.token);
    expect(statuses).toEqual([401, 401, 200]);
  });
});
