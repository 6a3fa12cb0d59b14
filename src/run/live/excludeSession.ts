// Appends a session's exclusion from training to the run's journal (the run
// process's journal while it runs; the CLI's, under the run's lock, when none does).
import { RunJournal } from '../../core/journal/runJournal';
import { lockRun } from '../runFolder';
import { completedSessionEvents } from '../sessionFiles';
import { versionsTrainedOn } from './sessionExclusion';

export class SessionExclusionError extends Error {}

export async function excludeSession(journal: RunJournal, session: number, reason: string): Promise<{ session: number; trainedIn: string[] }> {
  const events = journal.events;
  if (!completedSessionEvents(events).some((e) => e.session === session)) {
    throw new SessionExclusionError(`session ${session} is not in the journal (only a journaled session can be excluded)`);
  }
  const already = events.find((e) => e.type === 'session-excluded' && e.session === session);
  if (already?.type === 'session-excluded') return { session, trainedIn: already.trainedIn };
  const trainedIn = versionsTrainedOn(events, session);
  await journal.append({ type: 'session-excluded', session, reason, trainedIn });
  return { session, trainedIn };
}

/** Excludes a session of a run no process runs: its journal opened under the run's lock, the event appended. */
export async function excludeSessionOffline(runDir: string, session: number, reason: string): Promise<{ session: number; trainedIn: string[] }> {
  const release = await lockRun(runDir);
  try {
    const journal = await RunJournal.open(runDir);
    try {
      if (journal.events[0]?.type !== 'run-started') throw new SessionExclusionError(`${runDir} has no run journal`);
      return await excludeSession(journal, session, reason);
    } finally {
      await journal.close();
    }
  } finally {
    await release();
  }
}
