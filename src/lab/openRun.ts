// A run the lab holds — on screen, or running in the background — and how it
// is held: this process runs it (its sessions, or only its gate and probe
// engine), or it is read from disk (another process may be running it). Its
// phase, the journal events the view is built from, its session details, its
// injection queue and its view updates travel with it.
import type { BadCandidateKind, InjectionView, RunPhase } from '../contract';
import { LabError } from '../contract';
import { readJournal } from '../core/journal/appendOnlyJournal';
import { journalEventSchema, type JournalEvent } from '../core/journal/journalEvents';
import type { LiveMode } from '../run/live/liveMode';
import type { LiveRun } from '../run/liveRun';
import { liveHolder, runPaths } from '../run/runFolder';
import { InjectionQueue } from './injectionQueue';
import { recipeOf } from './runView';
import { emptySentState, type SentState } from './runViewDiff';
import { SessionDetailCache } from './sessionDetails';
import { ViewUpdates } from './viewUpdates';

export type Held =
  /**
   * This process runs it: sessions (`run`), only its gate and probe engine
   * (`gate`), or live mode serving outside clients (`live`, with `liveMode`).
   * `control`: its control endpoint, through which `gatelab confirm|reject|…`
   * from another process reach it (null when it could not start).
   */
  | {
      kind: 'live';
      run: LiveRun;
      mode: 'run' | 'gate' | 'live';
      liveMode: LiveMode | null;
      unsubscribe: () => void;
      control: Promise<{ close(): Promise<void> } | null>;
    }
  /** Read from disk; `heldBy` is another process running it (its journal followed), or null. */
  | { kind: 'disk'; heldBy: number | null; poll: ReturnType<typeof setInterval> | null };

export type OpenRun = {
  runDir: string;
  events: JournalEvent[];
  details: SessionDetailCache;
  held: Held;
  phase: RunPhase;
  error: string | null;
  /** Updates sent for this view (the renderer's gap check). */
  update: number;
  sent: SentState;
  updates: ViewUpdates;
  /** The run's sessions, while they run. */
  sessionsDone: Promise<void> | null;
  /** A person's injection requests, built in the background one at a time. */
  injections: InjectionQueue;
};

/** Whether a run folder is a live-mode run (its journal's first event says so). */
export function isLiveModeRun(run: Pick<OpenRun, 'events'>): boolean {
  const started = run.events[0];
  return started?.type === 'run-started' && started.live === true;
}

/** Live mode, when this process serves it for the run. */
export function liveModeOf(run: Pick<OpenRun, 'held'>): LiveMode | null {
  return run.held.kind === 'live' ? run.held.liveMode : null;
}

export type OpenRunHooks = {
  batchMs: number;
  /** Sends the run's view (its update batch is due). */
  send: (run: OpenRun) => Promise<void>;
  /** Builds and stages one injected candidate on the run; answers its candidate id. */
  buildInjection: (run: OpenRun, kind: BadCandidateKind) => Promise<string>;
  injectionChanged: (run: OpenRun, injection: InjectionView) => void;
  warn: (line: string) => void;
};

/** Reads a run folder from disk, refusing what is not one (with the reason). */
export async function openRunFolder(runDir: string, phase: RunPhase, hooks: OpenRunHooks): Promise<OpenRun> {
  let events: JournalEvent[];
  try {
    events = (await readJournal(runPaths(runDir).journal, journalEventSchema)).events;
  } catch (error) {
    throw new LabError('not-found', `${runDir}: cannot read its journal: ${(error as Error).message}`);
  }
  if (events[0]?.type !== 'run-started') throw new LabError('not-found', `${runDir} is not a run folder (no journal.jsonl with run-started)`);
  try {
    recipeOf(events);
  } catch (error) {
    throw new LabError('not-found', `${runDir}: its journal holds no valid recipe: ${(error as Error).message}`);
  }
  const holder = await liveHolder(runDir);
  const heldBy = holder !== undefined && holder !== process.pid ? holder : null;
  const run: OpenRun = {
    runDir,
    events,
    details: new SessionDetailCache(runDir),
    held: { kind: 'disk', heldBy, poll: null },
    phase,
    error: null,
    update: 0,
    sent: emptySentState(),
    updates: new ViewUpdates(
      hooks.batchMs,
      () => hooks.send(run),
      (error) => hooks.warn(`run view update failed: ${error.message}`),
    ),
    sessionsDone: null,
    injections: new InjectionQueue(
      (kind) => hooks.buildInjection(run, kind),
      (injection) => hooks.injectionChanged(run, injection),
    ),
  };
  for (const problem of await run.details.load(events)) hooks.warn(problem);
  return run;
}
