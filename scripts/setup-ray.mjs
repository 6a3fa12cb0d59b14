#!/usr/bin/env node
// `npm run setup:ray`: PyPI's Ray (ray[default], pinned with every package it
// brings in src/remote/ray/requirements.txt) in its own virtual
// environment at $GATELAB_HOME/ray (GATELAB_HOME defaults to ~/.cache/gatelab):
// its `ray` starts the local head the Ray integration test submits to, and on a
// real cluster it is what each node needs besides the worker's own environment
// (README, "Past one machine"). Its own environment, not the torch one, so
// that Ray's pins never move torch's. A stamp holds the requirements' sha256:
// a second run is a no-op and a changed pin re-installs.
// GateLab itself needs no Python on the desktop's side for Ray: it talks to the
// cluster's job REST API from Node.
// Options: --force. Environment: GATELAB_HOME; GATELAB_PYTHON (default python3).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './lib/paths.mjs';
import { run } from './lib/run.mjs';

const home = process.env.GATELAB_HOME || join(homedir(), '.cache', 'gatelab');
const venv = join(home, 'ray');
const venvPython = process.platform === 'win32' ? join(venv, 'Scripts', 'python.exe') : join(venv, 'bin', 'python');
const requirements = join(repoRoot, 'src', 'remote', 'ray', 'requirements.txt');
const stamp = join(venv, '.gatelab-requirements.sha256');

function fail(message) {
  console.error(`\nsetup:ray: ${message}`);
  process.exit(1);
}

const wanted = createHash('sha256').update(readFileSync(requirements)).digest('hex');
const have = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
if (!process.argv.includes('--force') && existsSync(venvPython) && have === wanted) {
  console.log(`setup:ray: environment ${venv} is up to date (requirements ${wanted.slice(0, 12)})`);
  process.exit(0);
}
const basePython = process.env.GATELAB_PYTHON ?? (process.platform === 'win32' ? 'python' : 'python3');
const version = await run(basePython, ['-c', 'import sys; print(sys.version_info >= (3, 10))'], { capture: true });
if (version.code !== 0 || version.output.trim() !== 'True') fail(`needs Python 3.10 or newer as '${basePython}' (set GATELAB_PYTHON)`);
if (!existsSync(venvPython)) {
  console.log(`\n=== Creating the virtual environment ${venv}`);
  mkdirSync(home, { recursive: true });
  const made = await run(basePython, ['-m', 'venv', venv], { cwd: repoRoot });
  if (made.code !== 0) fail(`python -m venv failed (exit ${made.code})`);
}
console.log(`\n=== Installing ${requirements}`);
rmSync(stamp, { force: true });
const installed = await run(venvPython, ['-m', 'pip', 'install', '--disable-pip-version-check', '-r', requirements], { cwd: repoRoot });
if (installed.code !== 0) fail(`pip install failed (exit ${installed.code})`);
writeFileSync(stamp, `${wanted}\n`);
console.log(`\n=== Ray ready: ${join(venv, 'bin', 'ray')}`);
