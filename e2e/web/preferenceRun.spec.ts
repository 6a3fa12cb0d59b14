// The SmolLM2 preference run in the desktop: a real model's learning curve on its
// stated preference, the floor on each candidate's probe rounds (gate.csv), and the
// frozen control beside it in Compare. The fixture is one seed of bench:recipe on
// recipes/smollm2-135m-preference.yaml, each arm's curve.csv, gate.csv and
// journal.jsonl copied from its run folder as the bench left it (--keep).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURE_DIR, SCREENSHOT_DIR } from '../paths';
import { expect, test } from './runLab';
import { clippedElements, SMALL_WINDOW } from './screens';
import { watchConsole } from './watchConsole';

const RUNS = join(FIXTURE_DIR, 'smollm2-preference');
const TRAINED = join(RUNS, 'trained-seed-2');
const CONTROL = join(RUNS, 'control-seed-2');

test.use({ labFor: 'preferenceRun', viewport: SMALL_WINDOW });

/** A column of a run's curve.csv, as written. */
function curveColumn(dir: string, name: string): number[] {
  const [header, ...rows] = readFileSync(join(dir, 'curve.csv'), 'utf8').trim().split('\n');
  const column = header!.split(',').indexOf(name);
  return rows.map((row) => Number(row.split(',')[column]));
}

/** The sessions a run's curve.csv accepted. */
const accepted = (dir: string): number => curveColumn(dir, 'accept').filter((x) => x === 1).length;

/** A column's mean over the first 10 and the last 10 sessions. */
function firstAndLast10(dir: string, name: string): [number, number] {
  const values = curveColumn(dir, name);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return [mean(values.slice(0, 10)), mean(values.slice(-10))];
}

test('the SmolLM2 preference run: its curve and the floor of its candidates, then the frozen control beside it in Compare', async ({ page, runLab }) => {
  const problems = watchConsole(page);
  await page.goto(runLab.url);
  // The run's files with its journal: the tiles then speak of the preference its user stated.
  await page.getByTestId('open-run-input').setInputFiles([join(TRAINED, 'curve.csv'), join(TRAINED, 'gate.csv'), join(TRAINED, 'journal.jsonl')]);
  const chart = page.getByTestId('curve-chart');
  await expect(chart).toHaveAttribute('data-points', '36');
  await expect(page.getByTestId('tile-preference')).toContainText('“Please answer in one or two short sentences.”');
  const [missedFirst, missedLast] = firstAndLast10(TRAINED, 'no_gold_answer');
  await expect(page.getByTestId('tile-floor')).toContainText(`${Math.round(missedFirst * 100)}% → ${Math.round(missedLast * 100)}%`);
  const [charsFirst, charsLast] = firstAndLast10(TRAINED, 'first_reply_chars');
  await expect(page.getByTestId('tile-reply-chars')).toContainText(`${Math.round(charsFirst)} → ${Math.round(charsLast)}`);
  await expect(page.locator('.tiles').getByText('Bold', { exact: true })).toHaveCount(0);
  expect(await clippedElements(page, ['.table-scroll'])).toEqual([]); // the sessions table scrolls sideways by design
  // The README's picture: the tiles and the whole learning curve (1280 wide, tall enough for the chart).
  await page.setViewportSize({ width: SMALL_WINDOW.width, height: 1100 });
  await page.mouse.move(0, 0);
  await page.screenshot({ path: join(SCREENSHOT_DIR, 'readme-preference-curve.png') });
  await page.setViewportSize(SMALL_WINDOW);

  // Compare: both arms' run folders (their journals name recipe, seed and arm), the opened file let go.
  await page.getByTestId('compare-start').click();
  const view = page.getByTestId('compare-view');
  await page.getByTestId('compare-folder-input').setInputFiles(TRAINED);
  await page.getByTestId('compare-folder-input').setInputFiles(CONTROL);
  await expect(view).toHaveAttribute('data-runs', '3');
  await page.getByTestId('compare-remove').first().click();
  await expect(view).toHaveAttribute('data-runs', '2');
  const rows = page.getByTestId('compare-table').locator('tbody tr');
  await expect(rows).toHaveCount(2);
  const cells = async (i: number) => rows.nth(i).locator('td').allTextContents();
  expect((await cells(0)).slice(0, 4)).toEqual(['trained-seed-2', 'smollm2-135m-preference', '2', 'trained']);
  expect((await cells(0)).at(-1)).toBe(`${accepted(TRAINED)} / 36`);
  expect((await cells(1)).slice(0, 4)).toEqual(['control-seed-2', 'smollm2-135m-preference', '2', 'control']);
  expect((await cells(1)).at(-1)).toBe(`${accepted(CONTROL)} / 36`);
  expect(await clippedElements(page, ['.table-scroll'])).toEqual([]); // the sessions table scrolls sideways by design
  await page.setViewportSize({ width: SMALL_WINDOW.width, height: 1000 });
  await page.mouse.move(0, 0);
  await page.screenshot({ path: join(SCREENSHOT_DIR, 'readme-preference-compare.png') });
  await page.setViewportSize(SMALL_WINDOW);
  expect(problems).toEqual([]);
});
