// The run list: every folder of the lab's runs folder whose journal starts a
// run, newest first, with what the Start page shows of it (its status, its
// sessions, what serves, what awaits a person, who holds it).
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { RunFolderInfo, RunFolderStatus } from '../contract';
import { readJournal } from '../core/journal/appendOnlyJournal';
import { journalEventSchema } from '../core/journal/journalEvents';
import { liveHolder, runPaths } from '../run/runFolder';
import { statusFromEvents } from '../run/runStatus';

export async function listRunFolders(runsDir: string): Promise<RunFolderInfo[]> {
  let names: string[];
  try {
    names = await readdir(runsDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const runs: RunFolderInfo[] = [];
  for (const name of names) {
    const dir = path.join(runsDir, name);
    const events = await readJournal(runPaths(dir).journal, journalEventSchema).then(
      (r) => r.events,
      () => [],
    );
    if (events[0]?.type !== 'run-started') continue;
    try {
      const status = statusFromEvents(events);
      const holder = await liveHolder(dir);
      runs.push({
        runId: name,
        recipeName: status.recipe,
        status: folderStatus(holder !== undefined, status.completed, status.failure),
        failure: status.failure,
        startedAt: events[0].at,
        sessionsCompleted: status.sessions.completed,
        sessionsPlanned: status.sessions.planned,
        completed: status.completed,
        serving: status.serving.version,
        awaitingConfirm: status.candidates.filter((c) => c.state === 'awaiting-confirm').map((c) => c.id),
        heldBy: holder ?? null,
        live: events[0].live === true,
      });
    } catch {
      // A folder whose journal cannot be folded is not listed (opening it names the problem).
    }
  }
  return runs.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
}

/** A run folder's status in the run list. */
export function folderStatus(held: boolean, completed: boolean, failure: string | null): RunFolderStatus {
  if (completed) return 'complete';
  if (held) return 'running';
  return failure === null ? 'stopped' : 'failed';
}
