#!/usr/bin/env node
// The whole set-up on a fresh clone: `npm run setup`.
//  1. npm install with ELECTRON_SKIP_BINARY_DOWNLOAD=1, so a blocked Electron
//     download can never fail the install, and ONNXRUNTIME_NODE_INSTALL=skip:
//     onnxruntime-node's postinstall would fetch CUDA binaries from NuGet, and
//     GateLab uses only the CPU binary its package carries (npm 11 skips that
//     script anyway, by package.json's allowScripts; npm 10 does not read it);
//  2. then try electron's own download (node_modules/electron/install.js),
//     with a time limit, and say whether a binary is now present;
//  3. build dist/.
// Only a failed `npm install` or build fails the set-up: without an Electron
// binary, `npm start` runs GateLab in the browser instead.
// Options: --skip-install (dependencies already installed, e.g. by `npm ci`),
//          --skip-electron (do not try the download).
import { join } from 'node:path';
import { findElectronBinary } from './lib/electronBinary.mjs';
import { repoRoot } from './lib/paths.mjs';
import { NPM, run } from './lib/run.mjs';

const args = new Set(process.argv.slice(2));
const ELECTRON_DOWNLOAD_TIMEOUT_MS = 5 * 60 * 1000;

function step(text) {
  console.log(`\n=== ${text}`);
}

if (!args.has('--skip-install')) {
  step('npm install (Electron binary download deferred)');
  const install = await run(NPM, ['install'], {
    cwd: repoRoot,
    env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1', ONNXRUNTIME_NODE_INSTALL: 'skip' },
  });
  if (install.code !== 0) {
    console.error(`\nsetup: npm install failed (exit ${install.code}); GateLab cannot run without its dependencies.`);
    process.exit(1);
  }
}

let electron = findElectronBinary();
let electronNote;
if (electron.path !== null) {
  electronNote = 'already present';
} else if (args.has('--skip-electron')) {
  electronNote = `not tried (--skip-electron): ${electron.reason}`;
} else {
  step('Trying to download the Electron binary');
  const env = { ...process.env };
  delete env.ELECTRON_SKIP_BINARY_DOWNLOAD;
  const download = await run(process.execPath, [join(repoRoot, 'node_modules', 'electron', 'install.js')], {
    cwd: repoRoot,
    env,
    capture: true,
    timeoutMs: ELECTRON_DOWNLOAD_TIMEOUT_MS,
  });
  electron = findElectronBinary();
  if (electron.path !== null) electronNote = 'downloaded';
  else {
    const firstError =
      download.output
        .split('\n')
        .map((line) => line.trim())
        .find((line) => /error|fail|ENOTFOUND|ECONN|EAI_AGAIN|ETIMEDOUT|403|404/i.test(line)) ?? `exit code ${download.code}`;
    electronNote = download.timedOut ? `download gave up after ${ELECTRON_DOWNLOAD_TIMEOUT_MS / 1000} s` : `download failed: ${firstError.slice(0, 200)}`;
  }
}

step('Building dist/');
const build = await run(process.execPath, [join(repoRoot, 'scripts', 'build.mjs')], { cwd: repoRoot });
if (build.code !== 0) {
  console.error('\nsetup: the build failed; see the errors above.');
  process.exit(1);
}

console.log('\n=== GateLab set-up done');
console.log('  dependencies : installed');
if (electron.path !== null) {
  console.log(`  Electron     : present (${electronNote}) at ${electron.path}`);
  console.log('  npm start    : opens the GateLab desktop window');
} else {
  console.log(`  Electron     : no binary (${electronNote})`);
  console.log('  npm start    : serves GateLab in your browser on 127.0.0.1 (browser mode, same app)');
}
console.log('  npm test     : builds, runs the unit and end-to-end tests');
