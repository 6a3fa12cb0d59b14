#!/usr/bin/env node
// `npm run dist`: the Linux packages (AppImage and deb) with electron-builder,
// fuses flipped (see electron-builder.config.cjs). Needs an Electron binary in
// node_modules/electron — electron-builder packs that one instead of
// downloading its own, so this works offline once the set-up fetched it.
import { join } from 'node:path';
import { findElectronBinary } from './lib/electronBinary.mjs';
import { repoRoot } from './lib/paths.mjs';
import { run } from './lib/run.mjs';

const electron = findElectronBinary();
if (electron.path === null) {
  console.error(`dist: cannot package: ${electron.reason}.`);
  console.error('dist: run `npm run setup` on a machine that can download Electron (github.com), then `npm run dist`.');
  process.exit(1);
}
const build = await run(process.execPath, [join(repoRoot, 'scripts', 'build.mjs')], { cwd: repoRoot });
if (build.code !== 0) process.exit(build.code);
const builder = await run(
  process.execPath,
  [join(repoRoot, 'node_modules', 'electron-builder', 'cli.js'), '--linux', 'AppImage', 'deb', '--config', 'electron-builder.config.cjs', '--publish', 'never'],
  { cwd: repoRoot },
);
if (builder.code === 0) console.log('dist: packages written to release/');
process.exit(builder.code);
