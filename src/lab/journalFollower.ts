// Following a run that another process runs (`gatelab run`, another lab):
// its journal is re-read every second until that process lets go of the run
// folder; then the run is simply on disk, and can be resumed here.
import { readJournal } from '../core/journal/appendOnlyJournal';
import { journalEventSchema } from '../core/journal/journalEvents';
import { liveHolder, runPaths } from '../run/runFolder';
import type { OpenRun } from './openRun';

const POLL_MS = 1000;

/** Starts following the run's journal when another process holds it; `changed` after every read. */
export function followJournal(run: OpenRun, changed: () => void): void {
  if (run.held.kind !== 'disk' || run.held.heldBy === null) return;
  run.held.poll = setInterval(() => {
    void refreshFromDisk(run).then(changed);
  }, POLL_MS);
}

export function stopFollowing(run: OpenRun): void {
  if (run.held.kind === 'disk' && run.held.poll) clearInterval(run.held.poll);
}

/** Re-reads the journal of a run read from disk; notices when its holder let go. */
export async function refreshFromDisk(run: OpenRun): Promise<void> {
  if (run.held.kind !== 'disk') return;
  const { events } = await readJournal(runPaths(run.runDir).journal, journalEventSchema).catch(() => ({ events: run.events }));
  if (events.length !== run.events.length) run.events = events;
  if (run.held.heldBy !== null && (await liveHolder(run.runDir)) === undefined) {
    stopFollowing(run);
    run.held = { kind: 'disk', heldBy: null, poll: null };
  }
}
