/**
 * A person's data stays theirs: a session can be excluded from training
 * (`session-excluded`, append-only). From then on the trainer feed skips its
 * judged turns — those not yet trained are dropped. A step that already
 * consumed them cannot be undone; the event names the candidates such steps
 * made, so a person can reject one still in the gate (or roll back from one
 * that serves).
 *
 * The feed's positions (`samplesThrough`) keep counting every judged turn,
 * excluded or not, so a resumed run reads the same positions back.
 */
import type { JournalEvent } from '../../core/journal/journalEvents';
import { completedSessionEvents } from '../sessionFiles';

/** The session id every judged turn of session `n` carries (`<run id>/session-<n>`). */
export function sessionIdOf(runId: string, session: number): string {
  return `${runId}/session-${session}`;
}

/** The session ids the journal excludes from training. */
export function excludedSessionIds(events: readonly JournalEvent[]): Set<string> {
  const started = events[0];
  if (started?.type !== 'run-started') return new Set();
  return new Set(events.flatMap((e) => (e.type === 'session-excluded' ? [sessionIdOf(started.runId, e.session)] : [])));
}

/**
 * The versions whose trainer step may have trained on a session's turns:
 * the steps that name it, or for steps that named no sessions, every one that
 * consumed past where the session's turns begin (erring on naming too many).
 */
export function versionsTrainedOn(events: readonly JournalEvent[], session: number): string[] {
  const completed = completedSessionEvents(events);
  const at = completed.findIndex((e) => e.session === session);
  if (at === -1 || completed[at]!.samples.count === 0) return [];
  const start = completed.slice(0, at).reduce((n, e) => n + e.samples.count, 0);
  const started = events[0];
  const id = started?.type === 'run-started' ? sessionIdOf(started.runId, session) : undefined;
  return events.flatMap((e) => {
    if (e.type !== 'trainer-step') return [];
    // A step that recorded its sessions says exactly; an older one is counted by position.
    const trained = e.sessionIds ? id !== undefined && e.sessionIds.includes(id) : e.samplesThrough > start;
    return trained ? [e.candidate.version] : [];
  });
}

export type BatchChoice = { positions: number[]; through: number };

/**
 * The next step's turns: the next `batchTurns` turns after `consumed` that
 * are not excluded, and, with a window, the newest included turns before them
 * back to `trainFrom` — `window` turns in all. Undefined until a full batch
 * is pending.
 */
export function chooseBatch(
  all: readonly { sessionId: string }[],
  o: { consumed: number; trainFrom: number; batchTurns: number; window: number; excluded: ReadonlySet<string> },
): BatchChoice | undefined {
  const included = (i: number) => !o.excluded.has(all[i]!.sessionId);
  const batch: number[] = [];
  let through = o.consumed;
  while (batch.length < o.batchTurns && through < all.length) {
    if (included(through)) batch.push(through);
    through++;
  }
  if (batch.length < o.batchTurns) return undefined;
  const earlier: number[] = [];
  for (let i = o.consumed - 1; i >= o.trainFrom && earlier.length + batch.length < o.window; i--) if (included(i)) earlier.unshift(i);
  return { positions: [...earlier, ...batch], through };
}

/** How many included turns wait after `consumed`. */
export function pendingIncluded(all: readonly { sessionId: string }[], consumed: number, excluded: ReadonlySet<string>): number {
  let n = 0;
  for (let i = consumed; i < all.length; i++) if (!excluded.has(all[i]!.sessionId)) n++;
  return n;
}
