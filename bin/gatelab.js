#!/usr/bin/env node
// The `gatelab` command (package.json "bin"). Runs the built CLI when it is
// there (dist/lab/cli.js, from `npm run build`), else the TypeScript source
// through tsx's loader, so a fresh checkout works without a build.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = new URL('../dist/lab/cli.js', import.meta.url);
if (existsSync(fileURLToPath(built))) {
  await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/surfaces/cli/cliMain.ts', import.meta.url).href);
}
