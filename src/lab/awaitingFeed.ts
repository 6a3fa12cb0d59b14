// The lab-wide list of candidates waiting for a person. A waiting candidate
// must be impossible to miss whichever run is on screen, so this follows
// every run the lab knows of — the runs folder, and each folder opened here
// from elsewhere — not only the one on screen. Each journal is read again
// only when its size or time changed; a change of the list goes out as one
// `labRuns.awaitingChanged` event (the renderers never poll).
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { AwaitingCandidateView, AwaitingView } from '../contract';
import { readJournal } from '../core/journal/appendOnlyJournal';
import { journalEventSchema, type JournalEvent } from '../core/journal/journalEvents';
import { runPaths } from '../run/runFolder';
import { statusFromEvents } from '../run/runStatus';
import type { LabEventBus } from './eventBus';

export type AwaitingFeedOptions = {
  runsDir: string;
  events: LabEventBus;
  /** How often the journals are looked at for changes made by any process (ms). */
  pollMs?: number;
};

export interface AwaitingFeed {
  /** The list now (read fresh). */
  view(): Promise<AwaitingView>;
  /** Follows a run folder outside the runs folder too (one opened by path). */
  follow(runDir: string): void;
  /** Looks again now (a run on screen changed); a change goes out as an event. */
  refresh(): Promise<void>;
  close(): void;
}

type RunAwaiting = { runId: string; runDir: string; recipeName: string; candidates: AwaitingCandidateView[] };
type Cached = { stamp: string; awaiting: RunAwaiting | null };

/** The candidates of one run's journal that wait for a person, oldest first. */
export function awaitingOf(runDir: string, events: readonly JournalEvent[]): RunAwaiting | null {
  const status = statusFromEvents(events);
  const since = new Map<string, string>();
  for (const e of events) if (e.type === 'candidate-awaiting-confirm') since.set(e.id, e.at);
  const candidates = status.candidates
    .filter((c) => c.state === 'awaiting-confirm')
    .map((c) => ({
      id: c.id,
      version: c.version,
      passedRounds: c.rounds.filter((r) => r.passed).length,
      probedAgainst: c.rounds.at(-1)?.serving.version ?? status.serving.version,
      since: since.get(c.id) ?? events.at(-1)!.at,
    }))
    .sort((a, b) => a.since.localeCompare(b.since));
  return candidates.length === 0 ? null : { runId: path.basename(runDir), runDir, recipeName: status.recipe, candidates };
}

export function createAwaitingFeed(options: AwaitingFeedOptions): AwaitingFeed {
  const { runsDir, events, pollMs = 1000 } = options;
  const followed = new Set<string>();
  const cache = new Map<string, Cached>();
  let sent = '';
  let looking: Promise<AwaitingView> | null = null;
  let again = false;

  async function folders(): Promise<string[]> {
    let names: string[] = [];
    try {
      names = await readdir(runsDir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    return [...new Set([...names.map((name) => path.join(runsDir, name)), ...followed])];
  }

  /** One run's waiting candidates, its journal read again only when it changed. */
  async function runAwaiting(runDir: string): Promise<RunAwaiting | null> {
    const journal = runPaths(runDir).journal;
    const info = await stat(journal).catch(() => null);
    if (info === null) {
      cache.delete(runDir);
      return null;
    }
    const stamp = `${info.size}:${info.mtimeMs}`;
    const cached = cache.get(runDir);
    if (cached?.stamp === stamp) return cached.awaiting;
    let awaiting: RunAwaiting | null = null;
    try {
      const { events: journalEvents } = await readJournal(journal, journalEventSchema);
      if (journalEvents[0]?.type === 'run-started') awaiting = awaitingOf(runDir, journalEvents);
    } catch {
      // A journal that cannot be read or folded shows nothing waiting here; opening the run names the problem.
    }
    cache.set(runDir, { stamp, awaiting });
    return awaiting;
  }

  async function look(): Promise<AwaitingView> {
    const runs: RunAwaiting[] = [];
    for (const dir of await folders()) {
      const awaiting = await runAwaiting(dir);
      if (awaiting !== null) runs.push(awaiting);
    }
    runs.sort((a, b) => a.candidates[0]!.since.localeCompare(b.candidates[0]!.since));
    const view: AwaitingView = { total: runs.reduce((n, r) => n + r.candidates.length, 0), runs };
    const text = JSON.stringify(view);
    if (text !== sent) {
      sent = text;
      events.emit('labRuns.awaitingChanged', view);
    }
    return view;
  }

  /** One look at a time; a request during a look gets one more look after it. */
  async function lookOnce(): Promise<AwaitingView> {
    if (looking !== null) {
      again = true;
      return looking;
    }
    looking = look().finally(() => {
      looking = null;
    });
    const view = await looking;
    if (again) {
      again = false;
      return lookOnce();
    }
    return view;
  }

  const report = (error: unknown) => events.log('warn', `the list of waiting candidates could not be read: ${(error as Error).message}`);
  const timer = setInterval(() => void lookOnce().catch(report), pollMs);
  timer.unref?.();

  return {
    view: () => lookOnce(),
    follow(runDir) {
      const dir = path.resolve(runDir);
      if (path.dirname(dir) === path.resolve(runsDir)) return;
      followed.add(dir);
    },
    refresh: () => lookOnce().then(() => undefined),
    close: () => clearInterval(timer),
  };
}
