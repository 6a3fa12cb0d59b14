/**
 * Where a worker's code is and how to start it (docs/internals.md, "Build,
 * run, test"). One decision, in one place:
 * - from TypeScript sources (vitest, tsx): `node --import tsx <file>.ts`;
 * - built: `node dist/workers/<name>.js`;
 * - inside Electron's main process, built: `utilityProcess.fork`, through
 *   the fork function src/surfaces/electronMain registers (the lab never imports
 *   electron).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { utilityProcessFork } from './utilityProcessHost';

/** Each worker's source file, relative to src/backends/. */
export const WORKER_SOURCES = {
  engine: 'embedded/engine/engineWorker.ts',
  trainer: 'embedded/trainer/trainerWorker.ts',
} as const satisfies Record<string, string>;

export type WorkerName = keyof typeof WORKER_SOURCES;

/**
 * How to start a worker. `node` and `utility` workers talk over the process
 * channel (Node IPC / Electron MessagePort); `process` workers (Python and
 * other non-Node programs) talk JSON lines over stdin/stdout.
 */
export type WorkerEntry =
  | { readonly kind: 'node'; readonly command: string; readonly args: readonly string[]; readonly env: Readonly<Record<string, string>> }
  | { readonly kind: 'utility'; readonly modulePath: string; readonly args: readonly string[] }
  | { readonly kind: 'process'; readonly command: string; readonly args: readonly string[]; readonly env: Readonly<Record<string, string>> };

export interface EntryContext {
  /** The URL of the code asking: a `.ts` URL means we run from sources. */
  readonly selfUrl: string;
  /** Set inside Electron (process.versions.electron). */
  readonly electronVersion: string | undefined;
  /** Whether src/surfaces/electronMain registered a utilityProcess fork function. */
  readonly utilityAvailable: boolean;
}

function currentContext(): EntryContext {
  return {
    selfUrl: import.meta.url,
    electronVersion: process.versions.electron,
    utilityAvailable: utilityProcessFork() !== undefined,
  };
}

/** The tsx ESM loader as an absolute URL, so `--import` works from any cwd. */
function tsxLoaderUrl(): string {
  const require = createRequire(import.meta.url);
  const packageJson = require.resolve('tsx/package.json');
  return pathToFileURL(packageJson.replace(/package\.json$/, 'dist/loader.mjs')).href;
}

/** A TypeScript worker file started with Node and the tsx loader (sources, tests). */
export function sourceWorkerEntry(sourcePath: string): WorkerEntry {
  return { kind: 'node', command: process.execPath, args: ['--import', tsxLoaderUrl(), sourcePath], env: {} };
}

export function workerEntry(name: WorkerName, context: EntryContext = currentContext()): WorkerEntry {
  const fromSources = context.selfUrl.endsWith('.ts');
  if (fromSources) {
    // src/processes/workerEntry.ts → src/backends/<source>
    return sourceWorkerEntry(fileURLToPath(new URL(`../backends/${WORKER_SOURCES[name]}`, context.selfUrl)));
  }
  // Bundled: this code is dist/<part>/<bundle>.js, workers are dist/workers/<name>.js.
  const built = fileURLToPath(new URL(`../workers/${name}.js`, context.selfUrl));
  if (!existsSync(built)) throw new Error(`worker ${name}: ${built} is missing; run the build first`);
  if (context.electronVersion !== undefined && context.utilityAvailable) {
    return { kind: 'utility', modulePath: built, args: [] };
  }
  // Under Electron without a utilityProcess (e.g. the CLI run by Electron's
  // binary), the same binary acts as plain Node when asked to.
  const env: Record<string, string> = context.electronVersion !== undefined ? { ELECTRON_RUN_AS_NODE: '1' } : {};
  return { kind: 'node', command: process.execPath, args: [built], env };
}
