#!/usr/bin/env node
// `npm run lint`: ESLint, Prettier's check, ruff's lint and ruff's format check,
// each run to the end so that one report shows every kind of finding.
// Exits 1 when any of them found something. `npm run format` fixes what the
// two formatters own; ESLint's and ruff's lint findings are fixed by hand.
// With --quiet, a passing step prints one line instead of its output (npm test uses it).
import { join } from 'node:path';
import { repoRoot } from './lib/paths.mjs';
import { run } from './lib/run.mjs';

const quiet = process.argv.includes('--quiet');
const bin = (...parts) => join(repoRoot, 'node_modules', ...parts);
const steps = [
  { name: 'eslint', args: [bin('eslint', 'bin', 'eslint.js'), '--max-warnings', '0', '.'] },
  { name: 'prettier --check', args: [bin('prettier', 'bin', 'prettier.cjs'), '--check', '--log-level', 'warn', '.'] },
  { name: 'ruff check', args: [join(repoRoot, 'scripts', 'ruff.mjs'), 'check'] },
  { name: 'ruff format --check', args: [join(repoRoot, 'scripts', 'ruff.mjs'), 'format', '--check'] },
];

const failed = [];
for (const step of steps) {
  if (!quiet) console.log(`--- ${step.name}`);
  const result = await run(process.execPath, step.args, { cwd: repoRoot, capture: quiet });
  if (result.code !== 0) {
    failed.push(step.name);
    if (quiet) console.log(`--- ${step.name}: FAILED\n${result.output.trimEnd()}`);
  } else if (quiet) {
    console.log(`--- ${step.name}: clean`);
  }
}
console.log(
  failed.length === 0
    ? 'lint: clean'
    : `lint: findings from ${failed.join(', ')}${failed.some((name) => name.includes('--check')) ? ' (`npm run format` fixes formatting)' : ''}`,
);
process.exit(failed.length === 0 ? 0 : 1);
