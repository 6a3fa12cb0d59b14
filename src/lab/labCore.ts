import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AppInfo, AppMode, LabHandlers, LoadedRun } from '../contract';
import { createAwaitingFeed } from './awaitingFeed';
import { createLabEventBus } from './eventBus';
import type { LabEventBus } from './eventBus';
import { listRecipes } from './recipeCatalog';
import { createReferenceLibrary } from './referenceRuns';
import { loadRunFolderCurve } from './runFolderCurve';
import { provenanceOfFirstLine } from './runProvenance';
import { loadRunFromTexts, sha256Hex } from './runFiles';
import { runFolderPath } from './recipeCatalog';
import { RunManager } from './runManager';
import { createWorkersFeed } from './workersFeed';
import { workerRegistry, type WorkerRegistry } from '../processes/workerRegistry';

export interface LabCoreOptions {
  /** The app's assets folder (assets/ in the repository, app.asar/assets when packaged). */
  readonly assetsDir: string;
  readonly version: string;
  readonly mode: AppMode;
  /** The recipes the desktop offers (default: $GATELAB_RECIPES_DIR, else the recipes/ folder beside assets/). */
  readonly recipesDir?: string;
  /** Where the desktop creates run folders (default: $GATELAB_RUNS_DIR, else ~/GateLab/runs). */
  readonly runsDir?: string;
  /** The supervisors' record of worker processes (default: this process's). */
  readonly workerRegistry?: WorkerRegistry;
}

/** Where run folders go when the caller does not say: GATELAB_RUNS_DIR, else ~/GateLab/runs. */
export function defaultRunsDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env['GATELAB_RUNS_DIR'];
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(homedir(), 'GateLab', 'runs');
}

/** Where the desktop's recipes are when the caller does not say: GATELAB_RECIPES_DIR (a test's shortened recipes), else recipes/ beside assets/. */
export function defaultRecipesDir(assetsDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env['GATELAB_RECIPES_DIR'];
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(assetsDir, '..', 'recipes');
}

/** The lab core as both transports see it: one handler per LabApi method, and its events. */
export interface LabCore {
  readonly handlers: LabHandlers;
  readonly events: LabEventBus;
  /** Stops what the core runs (a live run's engines and trainer); its journal keeps everything. */
  close(): Promise<void>;
}

/**
 * The facade IPC and HTTP both call. It holds no transport logic and imports
 * nothing from Electron; later domains (recipe, run, gate) add their handlers
 * here.
 */
export function createLabCore(options: LabCoreOptions): LabCore {
  const events = createLabEventBus();
  const references = createReferenceLibrary(join(options.assetsDir, 'reference'));
  const recipesDir = options.recipesDir ?? defaultRecipesDir(options.assetsDir);
  const runs = new RunManager({ recipesDir, runsDir: options.runsDir ?? defaultRunsDir(), events });
  const workers = createWorkersFeed({ registry: options.workerRegistry ?? workerRegistry, events });
  const awaiting = createAwaitingFeed({ runsDir: runs.runsDir, events });
  // A change on screen (a decision, a round passed), or in the run running in the background, reaches the lab-wide list at once, not at its next look.
  const offAwaiting = events.subscribe((event) => {
    if (event === 'labRuns.changed' || event === 'labRuns.runningChanged') void awaiting.refresh().catch(() => undefined);
  });

  const info: AppInfo = {
    name: 'GateLab',
    version: options.version,
    mode: options.mode,
    platform: `${process.platform}-${process.arch}`,
    versions: { node: process.versions.node, electron: process.versions.electron ?? null },
    startedAt: new Date().toISOString(),
  };

  const announce = (run: LoadedRun): LoadedRun => {
    const { summary } = run;
    const adaptation = summary.adaptationSession === null ? 'adaptation not reached' : `adaptation at session ${summary.adaptationSession}`;
    events.log('info', `Opened ${summary.title}: ${summary.sessionCount} sessions, ${summary.accepted} accepted, ${adaptation}.`);
    for (const warning of run.warnings) events.log('warn', warning);
    events.emit('runs.loaded', summary);
    return run;
  };

  const handlers: LabHandlers = {
    'app.info': async () => info,
    'runs.listReferences': async () => references.list(),
    'runs.openReference': async ({ id, purpose }) => {
      const run = await references.open(id);
      switch (purpose) {
        case 'view':
          return announce(run);
        case 'overlay':
          // Drawn behind another run: not "opened", so no runs.loaded event.
          events.log('info', `Drawing ${run.summary.title} as the reference overlay.`);
          return run;
      }
    },
    'runs.openFiles': async ({ files, purpose, title, journalFirstLine }) => {
      const curveName = files[0]?.name ?? 'run';
      try {
        const loaded = loadRunFromTexts(files, {
          kind: 'files',
          id: `files:${sha256Hex(files.map((f) => f.text).join('\0')).slice(0, 12)}`,
          title: title ?? files.map((f) => f.name).join(' + '),
        });
        const run =
          journalFirstLine === undefined ? loaded : { ...loaded, provenance: provenanceOfFirstLine(journalFirstLine, `${title ?? curveName}/journal.jsonl`) };
        if (purpose === 'compare') {
          events.log('info', `Comparing ${run.summary.title}: ${run.summary.sessionCount} sessions.`);
          return run;
        }
        return announce(run);
      } catch (error) {
        events.log('error', `Could not open ${curveName}: ${error instanceof Error ? error.message : String(error)}`);
        throw error;
      }
    },
    'labRuns.recipes': async () => ({ recipes: await listRecipes(recipesDir), runsDir: runs.runsDir }),
    'labRuns.start': async (params) => runs.start(params),
    'labRuns.current': async () => ({ run: await runs.currentView() }),
    'labRuns.list': async () => ({ runsDir: runs.runsDir, runs: await runs.listRuns() }),
    'labRuns.awaiting': async () => awaiting.view(),
    'labRuns.running': async () => runs.running(),
    'labRuns.open': async (where) => {
      const view = await runs.open(where);
      awaiting.follow(view.header.runDir);
      return view;
    },
    'labRuns.stop': async () => runs.stop(),
    'labRuns.pause': async () => runs.pause(),
    'labRuns.resume': async () => runs.resume(),
    'labRuns.confirm': async ({ candidate }) => runs.requests.confirm(candidate),
    'labRuns.reject': async ({ candidate, reason }) => runs.requests.reject(candidate, reason),
    'labRuns.inject': async ({ kind }) => runs.requests.inject(kind),
    'labRuns.rollback': async ({ version }) => runs.requests.rollback(version),
    'labRuns.probeReplies': async ({ candidate, round }) => runs.requests.probeReplies(candidate, round),
    'labRuns.transcript': async ({ session }) => runs.requests.transcript(session),
    'labRuns.openCurve': async (where) => {
      const runDir = 'runId' in where ? runFolderPath(runs.runsDir, where.runId) : resolve(where.path);
      const run = await loadRunFolderCurve(runDir, where.purpose === 'view');
      if (where.purpose === 'view') return announce(run);
      events.log('info', `Comparing ${run.summary.title}: ${run.summary.sessionCount} sessions.`);
      return run;
    },
    'labLive.start': async (params) => runs.startLive(params),
    'labLive.endpoint': async () => runs.live.endpoint(),
    'labLive.transcript': async ({ session }) => runs.live.transcript(session),
    'labLive.exclude': async ({ session, reason }) => runs.live.exclude(session, reason),
    'labLive.excludeOpen': async ({ name, reason }) => runs.live.excludeOpen(name, reason),
    'workers.list': async () => workers.view(),
  };

  return {
    handlers,
    events,
    close: async () => {
      await runs.close();
      workers.close();
      offAwaiting();
      awaiting.close();
    },
  };
}
