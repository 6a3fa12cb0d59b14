#!/usr/bin/env node
// Builds everything `npm start`, the tests and packaging run:
//   esbuild → dist/main/main.js, dist/preload/preload.cjs, dist/lab/browser.js,
//             dist/lab/cli.js, dist/workers/<name>.js
//   copy    → dist/workers/torch/gatelab_torch/ (the Python torch worker's sources)
//             dist/workers/gatelab_ray_job.py (the Ray job's driver)
//   vite    → dist/renderer/
// Runtime dependencies (package.json "dependencies") and electron stay
// external: they are resolved from node_modules (or the packaged app's).
// Usage: node scripts/build.mjs [--only=node|renderer]
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build as esbuild } from 'esbuild';
import { tsImport } from 'tsx/esm/api';
import { build as viteBuild } from 'vite';
import { repoRoot } from './lib/paths.mjs';

const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length) ?? 'all';
if (!['all', 'node', 'renderer'].includes(only)) {
  console.error(`build: --only must be node or renderer, got "${only}"`);
  process.exit(2);
}

const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
const external = ['electron', ...Object.keys(pkg.dependencies ?? {})];

// Bundled CommonJS code inside an ESM bundle may still call require().
const esmBanner = "import { createRequire as __gatelabCreateRequire } from 'node:module'; const require = __gatelabCreateRequire(import.meta.url);";

/** The Node entries: [source, output, format]. Workers come from the supervisor's own table. */
async function nodeEntries() {
  const { WORKER_SOURCES } = await tsImport(join(repoRoot, 'src/processes/workerEntry.ts'), import.meta.url);
  const entries = [
    ['src/surfaces/electronMain/main.ts', 'dist/main/main.js', 'esm'],
    ['src/surfaces/preload/preload.ts', 'dist/preload/preload.cjs', 'cjs'],
    ['src/surfaces/browser/browserMain.ts', 'dist/lab/browser.js', 'esm'],
    ['src/surfaces/cli/cliMain.ts', 'dist/lab/cli.js', 'esm'],
    ...Object.entries(WORKER_SOURCES).map(([name, source]) => [`src/backends/${source}`, `dist/workers/${name}.js`, 'esm']),
  ];
  for (const [source] of entries) {
    if (!existsSync(join(repoRoot, source))) throw new Error(`build: entry ${source} does not exist`);
  }
  return entries;
}

async function buildNode() {
  const entries = await nodeEntries();
  for (const dir of ['dist/main', 'dist/preload', 'dist/lab', 'dist/workers']) rmSync(join(repoRoot, dir), { recursive: true, force: true });
  await Promise.all(
    entries.map(([source, outfile, format]) =>
      esbuild({
        absWorkingDir: repoRoot,
        entryPoints: [source],
        outfile,
        bundle: true,
        platform: 'node',
        // Electron 39 ships Node 22; plain Node here is 20.
        target: 'node20',
        format,
        external,
        sourcemap: true,
        logLevel: 'warning',
        banner: format === 'esm' ? { js: esmBanner } : undefined,
      }),
    ),
  );
  console.log(`build: ${entries.length} Node entries → ${entries.map(([, out]) => out).join(', ')}`);
  // The torch trainer is Python: its package travels as sources (src/processes/python/pythonEnvironment.ts finds it).
  cpSync(join(repoRoot, 'src/backends/torch/gatelab_torch'), join(repoRoot, 'dist/workers/torch/gatelab_torch'), {
    recursive: true,
    filter: (source) => !source.includes('__pycache__'),
  });
  // The Ray job's driver: the lab sends its source inside each Ray job (src/remote/ray/rayJob.ts finds it).
  cpSync(join(repoRoot, 'src/remote/ray/gatelab_ray_job.py'), join(repoRoot, 'dist/workers/gatelab_ray_job.py'));
}

async function buildRenderer() {
  await viteBuild({ configFile: join(repoRoot, 'vite.config.ts'), logLevel: 'warn' });
  console.log('build: renderer → dist/renderer/');
}

const started = Date.now();
if (only !== 'renderer') await buildNode();
if (only !== 'node') await buildRenderer();
console.log(`build: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
