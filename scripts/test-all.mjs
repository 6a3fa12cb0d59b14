#!/usr/bin/env node
// `npm test`: build, then lint (`npm run lint`, counted as one test), then
// vitest (unit, integration, type-level tests), then Playwright (web:
// Chromium against browser mode; electron: the window, when an Electron
// binary exists), then pytest (the Python torch trainer, in the
// environment `npm run setup:python` made; skipped with a note without it).
// Each runner writes machine-readable results, and the last line printed is
// the total over all of them: `N passed, N failed`.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { electronAvailability, findElectronBinary } from './lib/electronBinary.mjs';
import { pythonTestPhase } from './lib/pytestPhase.mjs';
import { repoRoot } from './lib/paths.mjs';
import { run } from './lib/run.mjs';
import { findOnPath } from './lib/which.mjs';

const resultsDir = join(repoRoot, 'test-results');
const vitestJson = join(resultsDir, 'vitest.json');
const playwrightJson = join(resultsDir, 'playwright.json');
mkdirSync(resultsDir, { recursive: true });
rmSync(vitestJson, { force: true });
rmSync(playwrightJson, { force: true });

/** @type {{ passed: number, failed: number, skipped: string[], notes: string[] }} */
const totals = { passed: 0, failed: 0, skipped: [], notes: [] };

function finish() {
  console.log('\n=== Summary');
  for (const note of totals.notes) console.log(note);
  for (const skipped of totals.skipped) console.log(`skipped: ${skipped}`);
  console.log(`${totals.passed} passed, ${totals.failed} failed`);
  process.exit(totals.failed > 0 ? 1 : 0);
}

console.log('=== Build');
const build = await run(process.execPath, [join(repoRoot, 'scripts', 'build.mjs')], { cwd: repoRoot });
if (build.code !== 0) {
  totals.failed += 1;
  totals.notes.push('build: FAILED (no tests were run)');
  finish();
}

console.log('\n=== Lint (ESLint, Prettier, ruff)');
// One test: it passes when all four are clean; a failing one's findings are printed here.
const lint = await run(process.execPath, [join(repoRoot, 'scripts', 'lint.mjs'), '--quiet'], { cwd: repoRoot });
if (lint.code === 0) totals.passed += 1;
else totals.failed += 1;
totals.notes.push(lint.code === 0 ? 'lint: clean' : `lint: FAILED (exit ${lint.code}; its findings are printed under "=== Lint")`);

console.log('\n=== Unit and integration tests (vitest)');
const vitest = await run(
  process.execPath,
  [join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`],
  { cwd: repoRoot },
);
if (existsSync(vitestJson)) {
  const report = JSON.parse(readFileSync(vitestJson, 'utf8'));
  totals.passed += report.numPassedTests ?? 0;
  totals.failed += report.numFailedTests ?? 0;
  // A file that fails to load, or whose beforeAll throws, fails with no failed test
  // (its tests are reported skipped); count it once, or it would vanish from the total.
  const brokenSuites = (report.testResults ?? []).filter(
    (suite) => suite.status === 'failed' && !(suite.assertionResults ?? []).some((test) => test.status === 'failed'),
  );
  totals.failed += brokenSuites.length;
  totals.notes.push(
    `vitest: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${report.numPendingTests + report.numTodoTests} skipped` +
      (brokenSuites.length > 0 ? `; ${brokenSuites.length} file(s) failed outside their tests (load or hook errors), counted as failed` : ''),
  );
} else {
  totals.failed += 1;
  totals.notes.push(`vitest: no results (exit ${vitest.code})`);
}

console.log('\n=== End-to-end tests (Playwright)');
const playwrightCli = join(repoRoot, 'node_modules', '@playwright', 'test', 'cli.js');
const playwrightArgs = [playwrightCli, 'test', '--reporter=list,json'];
const env = { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightJson };
let command = process.execPath;
let args = playwrightArgs;
// The Electron project needs a display; give it a virtual one when there is none.
const electronBinary = findElectronBinary();
if (electronBinary.path !== null && process.platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
  const xvfbRun = findOnPath('xvfb-run');
  if (xvfbRun !== null) {
    command = xvfbRun;
    args = ['-a', process.execPath, ...playwrightArgs];
    console.log('(running under xvfb-run so the Electron window has a display)');
  }
}
const playwright = await run(command, args, { cwd: repoRoot, env });
if (existsSync(playwrightJson)) {
  const report = JSON.parse(readFileSync(playwrightJson, 'utf8'));
  const stats = report.stats ?? {};
  totals.passed += (stats.expected ?? 0) + (stats.flaky ?? 0);
  totals.failed += stats.unexpected ?? 0;
  totals.notes.push(`playwright: ${stats.expected ?? 0} passed, ${stats.unexpected ?? 0} failed, ${stats.skipped ?? 0} skipped, ${stats.flaky ?? 0} flaky`);
  if ((report.errors ?? []).length > 0) {
    totals.failed += report.errors.length;
    totals.notes.push(`playwright: ${report.errors.length} error(s) outside tests`);
  }
  if ((stats.skipped ?? 0) > 0) {
    const availability = electronAvailability(env);
    if (!availability.ok) totals.skipped.push(`the electron project — ${availability.reason}`);
  }
} else {
  totals.failed += 1;
  totals.notes.push(`playwright: no results (exit ${playwright.code})`);
}

console.log('\n=== Python tests (pytest: the torch trainer)');
const pytest = await pythonTestPhase(resultsDir);
totals.passed += pytest.passed;
totals.failed += pytest.failed;
totals.notes.push(pytest.note);
if (pytest.skipped !== null) totals.skipped.push(pytest.skipped);

finish();
