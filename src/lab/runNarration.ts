// The lab's log, told for a person: one line per journal event they should
// notice (a trainer step, a candidate awaiting them, a promotion, a
// rejection), and the line that ends a run's sessions.
import type { JournalEvent } from '../core/journal/journalEvents';
import type { RunSummaryFile } from '../run/runReport';

/** The line a journal event is told by, or null when it is not worth a person's attention. */
export function narration(e: JournalEvent): string | null {
  switch (e.type) {
    case 'trainer-step':
      return `Trainer step ${e.step}: candidate ${e.candidate.version} (loss ${e.stats['loss']?.toFixed(4) ?? '?'}).`;
    case 'candidate-awaiting-confirm':
      return `Gate: ${e.id} passed every probe round and awaits your confirmation.`;
    case 'candidate-promoted':
      return `Gate: ${e.id} promoted; serving ${e.previous.version} → ${e.pointer.version}.`;
    case 'candidate-rejected':
      return `Gate: ${e.id} rejected (${e.reason.code}): ${e.reason.detail}. Serving stays ${e.pointer.version}.`;
    default:
      return null;
  }
}

/** The line that says how a run's sessions ended. */
export function sessionsEndedLine(summary: RunSummaryFile): string {
  return `Run ${summary.completed ? 'complete' : 'stopped'}: ${summary.sessions.completed}/${summary.sessions.planned} sessions, ${summary.accepted} accepted, serving ${summary.serving.version}.`;
}
