#!/usr/bin/env node
// `npm start`: an Electron window when an Electron binary (and, on Linux, a
// display) exists; otherwise browser mode — the same renderer and lab core
// served on 127.0.0.1 with a per-launch token. Says which mode and why.
// GATELAB_MODE=browser|electron forces a mode; other arguments pass through
// to browser mode (e.g. `npm start -- --port 8123 --no-open`).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { electronAvailability } from './lib/electronBinary.mjs';
import { repoRoot } from './lib/paths.mjs';
import { run } from './lib/run.mjs';

const BUILT = ['dist/main/main.js', 'dist/preload/preload.cjs', 'dist/lab/browser.js', 'dist/renderer/index.html'];
const SOURCES = ['src', 'renderer', 'assets/reference', 'vite.config.ts', 'package.json'];

function newestMtime(path) {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

function buildIsStale() {
  const outputs = BUILT.map((file) => join(repoRoot, file));
  if (!outputs.every((file) => existsSync(file))) return true;
  const built = Math.min(...outputs.map((file) => statSync(file).mtimeMs));
  const sources = Math.max(
    ...SOURCES.map((path) => join(repoRoot, path))
      .filter(existsSync)
      .map(newestMtime),
  );
  return sources > built;
}

if (buildIsStale()) {
  console.log('GateLab: building (dist/ is missing or older than the sources)…');
  const build = await run(process.execPath, [join(repoRoot, 'scripts', 'build.mjs')], { cwd: repoRoot });
  if (build.code !== 0) process.exit(build.code);
}

const forced = process.env.GATELAB_MODE;
if (forced !== undefined && forced !== 'browser' && forced !== 'electron') {
  console.error(`GateLab: GATELAB_MODE must be "browser" or "electron", got "${forced}"`);
  process.exit(2);
}
const electron = electronAvailability();
const passThrough = process.argv.slice(2);

async function startBrowserMode(reason) {
  console.log(`GateLab: browser mode — ${reason}.`);
  const browser = await run(process.execPath, [join(repoRoot, 'dist', 'lab', 'browser.js'), ...passThrough], {
    cwd: repoRoot,
    forwardSignals: true,
  });
  process.exit(browser.code);
}

if (forced === 'browser') {
  await startBrowserMode('GATELAB_MODE=browser');
} else if (!electron.ok) {
  if (forced === 'electron') {
    console.error(`GateLab: GATELAB_MODE=electron, but ${electron.reason}.`);
    process.exit(1);
  }
  await startBrowserMode(`${electron.reason}; the same app is served to your browser instead`);
} else {
  console.log(`GateLab: Electron mode — electron ${electron.version} found at ${electron.binary}.`);
  // Chromium will not start its OS sandbox as root (containers); the page
  // sandbox (sandbox: true, contextIsolation) still applies.
  const rootArgs = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  if (rootArgs.length > 0) console.log('GateLab: running as root, so Chromium runs without its OS-level sandbox (--no-sandbox).');
  const startedAt = Date.now();
  const window = await run(electron.binary, [...rootArgs, join(repoRoot, 'dist', 'main', 'main.js')], {
    cwd: repoRoot,
    forwardSignals: true,
  });
  // An Electron that dies at once (missing system libraries, no GPU stack) falls back to the browser.
  if (window.code !== 0 && Date.now() - startedAt < 10_000) {
    await startBrowserMode(`Electron exited at start-up with code ${window.code}`);
  }
  process.exit(window.code);
}
