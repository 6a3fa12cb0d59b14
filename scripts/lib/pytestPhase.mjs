import { existsSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './paths.mjs';
import { run } from './run.mjs';

/** The venv `npm run setup:python` makes (src/processes/python/pythonEnvironment.ts finds the same one). */
function venvPython() {
  const home = process.env.GATELAB_HOME || join(homedir(), '.cache', 'gatelab');
  const venv = join(home, 'python');
  const python = process.platform === 'win32' ? join(venv, 'Scripts', 'python.exe') : join(venv, 'bin', 'python');
  return existsSync(python) && existsSync(join(venv, '.gatelab-requirements.sha256')) ? python : null;
}

/** Counts of a JUnit XML report: the sums over its <testsuite> elements. */
export function junitCounts(xml) {
  const counts = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  for (const match of xml.matchAll(/<testsuite\b([^>]*)>/g)) {
    for (const key of Object.keys(counts)) {
      const value = new RegExp(`\\b${key}="(\\d+)"`).exec(match[1] ?? '');
      if (value) counts[key] += Number(value[1]);
    }
  }
  return counts;
}

/**
 * Runs pytest over src/backends/torch/tests with a JUnit XML report.
 * @returns {Promise<{ passed: number, failed: number, note: string, skipped: string | null }>}
 */
export async function pythonTestPhase(resultsDir) {
  const python = venvPython();
  if (python === null) {
    return { passed: 0, failed: 0, note: 'pytest: not run', skipped: 'the Python tests — no environment; run `npm run setup:python`' };
  }
  const xmlPath = join(resultsDir, 'pytest.xml');
  rmSync(xmlPath, { force: true });
  const result = await run(python, ['-m', 'pytest', 'src/backends/torch/tests', '-q', '-p', 'no:cacheprovider', `--junitxml=${xmlPath}`], {
    cwd: repoRoot,
  });
  if (!existsSync(xmlPath)) return { passed: 0, failed: 1, note: `pytest: no results (exit ${result.code})`, skipped: null };
  const c = junitCounts(readFileSync(xmlPath, 'utf8'));
  const failed = c.failures + c.errors;
  const passed = c.tests - failed - c.skipped;
  // Exit 5 is "no tests collected": count it as a failure, the Python side must have tests.
  const broken = c.tests === 0 ? 1 : 0;
  return {
    passed,
    failed: failed + broken,
    note: `pytest: ${passed} passed, ${failed} failed, ${c.skipped} skipped${broken ? ' (no tests collected)' : ''}`,
    skipped: null,
  };
}
