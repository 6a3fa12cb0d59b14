import { REFERENCE_ID } from '../paths';
import { expect, test } from './labServer';
import { clippedElements, shootBothThemes, SMALL_WINDOW } from './screens';
import { watchConsole } from './watchConsole';

const pageColour = (page: import('@playwright/test').Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);

test.describe('themes and the small window (browser mode, Chromium)', () => {
  test('the theme follows the system until the person picks one, and the choice is kept', async ({ page, lab }) => {
    const problems = watchConsole(page);
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(lab.url);
    const html = page.locator('html');
    await expect(html).toHaveAttribute('data-theme', 'light');
    await expect(page.getByTestId('theme-system')).toHaveAttribute('aria-pressed', 'true');
    const light = await pageColour(page);
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect(html).toHaveAttribute('data-theme', 'dark');
    const dark = await pageColour(page);
    expect(dark).not.toBe(light);

    // A choice overrides the system, and survives a reload.
    await page.getByTestId('theme-light').click();
    await expect(html).toHaveAttribute('data-theme', 'light');
    expect(await pageColour(page)).toBe(light);
    await page.reload();
    await expect(html).toHaveAttribute('data-theme', 'light');
    await expect(page.getByTestId('theme-light')).toHaveAttribute('aria-pressed', 'true');
    // Back to the system's.
    await page.getByTestId('theme-system').click();
    await expect(html).toHaveAttribute('data-theme', 'dark');
    expect(problems).toEqual([]);
  });

  test('each page at 1280×720, in both themes: its own content only, nothing cut off', async ({ page, lab }) => {
    const problems = watchConsole(page);
    await page.setViewportSize(SMALL_WINDOW);
    await page.goto(lab.url);
    await expect(page.getByTestId('start-view')).toBeVisible();
    // The Start page: no viewer empty state, no viewer sidebar.
    await expect(page.getByTestId('empty-view')).toHaveCount(0);
    await expect(page.locator('aside.sidebar')).toHaveCount(0);
    expect(await clippedElements(page)).toEqual([]);

    await page.getByTestId('tab-viewer').click();
    await expect(page.getByTestId('empty-view')).toBeVisible();
    await expect(page.getByTestId('start-view')).toHaveCount(0);
    expect(await clippedElements(page)).toEqual([]);
    await shootBothThemes(page, 'web-viewer-empty');

    await page.getByTestId(`reference-${REFERENCE_ID}`).click();
    await expect(page.getByTestId('curve-chart')).toBeVisible();
    // The per-session table has all of curve.csv's 16 columns: it scrolls sideways by design.
    expect(await clippedElements(page, ['.table-scroll'])).toEqual([]);
    await shootBothThemes(page, 'web-reef-reference');
    await shootBothThemes(page, 'web-reef-gate-panel', async () => {
      await page.getByTestId('gate-panel').scrollIntoViewIfNeeded();
    });
    expect(problems).toEqual([]);
  });
});
