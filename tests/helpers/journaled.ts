import type { JournalEvent } from '../../src/core/journal/journalEvents';
import type { RunJournal } from '../../src/core/journal/runJournal';

/** Resolves with the first journal event (already there or to come) that `match` accepts: the test waits on the run's own record, not on time. */
export function journaled<E extends JournalEvent>(journal: RunJournal, match: (e: JournalEvent) => e is E): Promise<E> {
  const found = journal.events.find(match);
  if (found) return Promise.resolve(found);
  return new Promise((resolve) => {
    const stop = journal.onEvent((e) => {
      if (!match(e)) return;
      stop();
      resolve(e);
    });
  });
}
