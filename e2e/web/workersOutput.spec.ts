import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from './runLab';
import { shootBothThemes, SMALL_WINDOW } from './screens';
import { watchConsole } from './watchConsole';

// What a worker writes reaches the person: its output tail in the Workers
// panel, its whole output in the run folder, and a crash with its restart in
// the lab log — on a real run of the embedded recipe, in Chromium.
test.use({ labFor: 'workersOutput', viewport: SMALL_WINDOW });

test("a worker's output tail in the Workers panel and its file in the run folder; a SIGKILLed worker's crash and restart in the lab log", async ({
  page,
  runLab,
}) => {
  test.setTimeout(8 * 60_000);
  const problems = watchConsole(page);
  await page.goto(runLab.url);
  await page.getByTestId('tab-start').click();
  await page.getByTestId('start-sessions').fill('2');
  await page.getByTestId('start-button').click();
  await expect(page.getByTestId('run-phase')).toHaveAttribute('data-phase', 'running', { timeout: 120_000 });
  const runId = (await page.getByTestId('run-view').getAttribute('data-run-id')) ?? '';
  expect(runId).not.toBe('');

  const panel = page.getByTestId('workers-panel');
  const probe = panel.getByTestId('worker-probe');
  await expect(probe).toHaveAttribute('data-state', 'running', { timeout: 120_000 });
  const probePid = Number(await probe.getAttribute('data-pid'));
  expect(probePid).toBeGreaterThan(0);

  // The tail: the lines the probe engine wrote, with its model loaded.
  await probe.getByTestId('worker-log-toggle').click();
  const tail = panel.getByTestId('worker-log');
  await expect(tail).toContainText(/loaded .*policy/);
  await expect(tail).not.toContainText('nothing written yet');
  await panel.scrollIntoViewIfNeeded();
  await shootBothThemes(page, 'web-worker-log-tail');

  // A crash: the probe engine is killed from outside; the lab log says so, and that it was restarted.
  process.kill(probePid, 'SIGKILL');
  const labLog = page.getByTestId('log-panel');
  await labLog.getByRole('button', { name: /Lab log/ }).click();
  const crash = labLog.locator('.log-line', { hasText: `probe worker (pid ${probePid}) was killed by SIGKILL` });
  await expect(crash).toHaveCount(1, { timeout: 60_000 });
  await expect(crash).toHaveClass(/log-error/);
  const restarted = labLog.locator('.log-line', { hasText: /probe worker restarted \(restart 1\): pid \d+/ });
  await expect(restarted).toHaveCount(1, { timeout: 120_000 });
  await expect(probe).toHaveAttribute('data-state', 'running', { timeout: 120_000 });
  const newPid = Number(await probe.getAttribute('data-pid'));
  expect(newPid).not.toBe(probePid);
  await expect(restarted).toContainText(`pid ${newPid}`);
  await shootBothThemes(page, 'web-lab-log-worker-crash');

  // Nothing is lost: the whole output, both processes', is in the run folder's worker file.
  const file = await readFile(join(runLab.runsDir, runId, 'workers', 'probe.log'), 'utf8');
  expect(file).toContain(`started pid ${probePid}`);
  expect(file).toMatch(/loaded .*policy/);
  expect(file).toContain('killed by SIGKILL');
  expect(file).toContain(`started pid ${newPid}`);
  expect(problems).toEqual([]);
});
