#!/usr/bin/env node
// Ruff (Python lint and format) over every Python file in the repository,
// through ruff's WebAssembly build, so that it needs no Python environment.
// The settings are ruff.toml's at the root: the same file ruff's own CLI reads.
// Usage: node scripts/ruff.mjs check [file…]
//        node scripts/ruff.mjs format [--check] [file…]
// Without files it takes what git tracks or would track (`*.py`, .gitignore honoured).
// Exit status: 0 clean, 1 findings (or files that would be reformatted), 2 a usage error or a file the formatter cannot parse.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PositionEncoding, Workspace } from '@astral-sh/ruff-wasm-nodejs';
import { repoRoot } from './lib/paths.mjs';
import { parseTomlSubset } from './lib/tomlSubset.mjs';

const [command, ...rest] = process.argv.slice(2);
const checkOnly = rest.includes('--check');
const named = rest.filter((arg) => arg !== '--check');
if ((command !== 'check' && command !== 'format') || (command === 'check' && checkOnly) || named.some((arg) => arg.startsWith('-'))) {
  console.error('usage: node scripts/ruff.mjs check [file…] | format [--check] [file…]');
  process.exit(2);
}

const settingsFile = join(repoRoot, 'ruff.toml');
const workspace = new Workspace(parseTomlSubset(readFileSync(settingsFile, 'utf8'), 'ruff.toml'), PositionEncoding.Utf32);
const files = named.length > 0 ? named.map((file) => relative(repoRoot, file)) : pythonFiles();

let findings = 0;
let unformattable = 0;
let changed = 0;
for (const file of files) {
  const source = readFileSync(join(repoRoot, file), 'utf8');
  if (command === 'check') {
    /** @type {import('@astral-sh/ruff-wasm-nodejs').Diagnostic[]} */
    const diagnostics = workspace.check(source);
    for (const d of diagnostics) {
      // A file ruff cannot parse comes back as findings too (code `invalid-syntax`).
      findings += 1;
      const fixable = d.fix === null ? '' : ' [*]';
      console.log(`${file}:${d.start_location.row}:${d.start_location.column}: ${d.code ?? 'syntax-error'}${fixable} ${d.message}`);
    }
    continue;
  }
  let formatted;
  try {
    formatted = workspace.format(source);
  } catch (error) {
    unformattable += 1;
    console.log(`${file}: cannot be formatted: ${error instanceof Error ? error.message : String(error)}`);
    continue;
  }
  if (formatted === source) continue;
  changed += 1;
  if (checkOnly) console.log(`Would reformat: ${file}`);
  else writeFileSync(join(repoRoot, file), formatted);
}

if (command === 'check') {
  console.log(findings === 0 ? `ruff check: ${files.length} files, all checks passed` : `ruff check: ${findings} problem(s) in ${files.length} file(s)`);
} else if (checkOnly) {
  console.log(`ruff format --check: ${changed} of ${files.length} files would be reformatted`);
} else {
  console.log(`ruff format: ${changed} of ${files.length} files reformatted`);
}
process.exit(unformattable > 0 ? 2 : findings > 0 || (checkOnly && changed > 0) ? 1 : 0);

/** The repository's Python files, relative to its root: tracked, or new and not ignored. */
function pythonFiles() {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', '*.py'], { cwd: repoRoot, encoding: 'utf8' });
  // A file deleted in the work tree but still in the index is listed too; it has nothing to check.
  return [...new Set(listed.split('\n').filter((line) => line !== ''))].filter((file) => existsSync(join(repoRoot, file)));
}
