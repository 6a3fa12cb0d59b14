import { join } from 'node:path';
import { SCREENSHOT_DIR } from '../paths';
import { expect, test } from './runLab';
import { watchConsole } from './watchConsole';

// Issue 17: the desktop runs the SmolLM2 recipe (two vLLM servers, the torch
// trainer) from the Start page, and its workers panel shows those processes —
// the panel reads the supervisors' records, whatever the backend. Where the
// Python side is not installed the recipe says why it cannot run, and this
// test is skipped with those reasons (CI installs it).
test.use({ labFor: 'smollm2Run', viewport: { width: 1280, height: 720 } });

const RECIPE = 'smollm2-135m-cpu';

test('the SmolLM2 recipe from the Start page: the workers panel shows the vLLM servers and the torch trainer, a session is served by vLLM, Stop', async ({
  page,
  runLab,
}) => {
  test.setTimeout(40 * 60_000);
  const problems = watchConsole(page);
  await page.goto(runLab.url);
  await page.getByTestId('tab-start').click();
  const item = page.getByTestId(`recipe-${RECIPE}`);
  await expect(item).toBeVisible();
  if ((await item.getAttribute('data-runnable')) !== 'yes') {
    const reasons = await page.getByTestId(`recipe-reasons-${RECIPE}`).innerText();
    test.skip(true, `the SmolLM2 recipe cannot run here: ${reasons}`);
  }
  // The recipe's own session count: far more than the test waits for, so the run is still going
  // at every check below (it is stopped at the end).
  await item.click();
  await page.getByTestId('start-button').click();
  await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'running', { timeout: 120_000 });

  // Every process the run's supervisors started, as they record it: two vLLM servers, one torch trainer.
  const panel = page.getByTestId('workers-panel');
  for (const role of ['serving', 'probe', 'trainer']) {
    await expect(panel.getByTestId(`worker-${role}`)).toHaveAttribute('data-state', 'running', { timeout: 10 * 60_000 });
  }
  await expect(panel.getByTestId('worker-serving')).toContainText('vllm');
  await expect(panel.getByTestId('worker-probe')).toContainText('vllm');
  await expect(panel.getByTestId('worker-trainer')).toContainText('gatelab_torch');
  await panel.scrollIntoViewIfNeeded();
  await panel.screenshot({ path: join(SCREENSHOT_DIR, 'web-smollm2-workers.png') });

  // A whole session through the gateway on the vLLM serving engine, then Stop (it finishes the
  // session in progress).
  await expect(page.getByTestId('progress-sessions')).toHaveText(/^[1-9]\d*\/\d+$/, { timeout: 15 * 60_000 });
  await page.getByTestId('stop-button').click();
  await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'stopped', { timeout: 15 * 60_000 });
  expect(problems).toEqual([]);
});
