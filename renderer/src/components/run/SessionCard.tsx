import type { SessionView } from '../../../../src/contract/labRuns';
import { HighlightedReply, HighlightLegend, VerdictChips } from './HighlightedReply';

/**
 * The scored first reply of one session (the newest unless the person picked
 * another), the criterion's verdict on it, and what the student answered.
 */
export function SessionCard({
  sessions,
  planned,
  running,
  selected,
  onSelect,
}: {
  sessions: readonly SessionView[];
  planned: number;
  running: number | null;
  selected: number | null;
  onSelect: (session: number | null) => void;
}) {
  const index = selected === null ? sessions.length - 1 : sessions.findIndex((s) => s.session === selected);
  const shown = sessions[index];
  const progress = (
    <span className="card-meta" data-testid="session-progress" data-completed={sessions.length} data-planned={planned}>
      <strong className="big-number">{sessions.length}</strong> / {planned} sessions
      {running !== null && <> · running session {running}</>}
    </span>
  );
  if (shown === undefined) {
    return (
      <section className="card session-card" data-testid="session-card">
        <header className="card-header">
          <h3>Sessions</h3>
          {progress}
        </header>
        <p className="muted">
          {running !== null ? `Session ${running} is running: its first reply appears here when the student has reacted.` : 'No session has run yet.'}
        </p>
      </section>
    );
  }
  const go = (offset: number) => {
    const next = sessions[index + offset];
    if (next !== undefined) onSelect(index + offset === sessions.length - 1 ? null : next.session);
  };
  return (
    <section className="card session-card" data-testid="session-card" data-session={shown.session} data-accepted={shown.accepted ? 'yes' : 'no'}>
      <header className="card-header">
        <h3>
          Session {shown.session} · first reply{' '}
          <span className={shown.accepted ? 'badge badge-good' : 'badge badge-bad'}>{shown.accepted ? 'accepted' : 'not accepted'}</span>
        </h3>
        {progress}
      </header>
      <div className="session-nav">
        <button type="button" className="button secondary small" onClick={() => go(-1)} disabled={index <= 0}>
          ◀ previous
        </button>
        <button type="button" className="button secondary small" onClick={() => go(1)} disabled={index >= sessions.length - 1}>
          next ▶
        </button>
        <button type="button" className="button secondary small" onClick={() => onSelect(null)} disabled={selected === null} aria-pressed={selected === null}>
          follow newest
        </button>
        <span className="muted small">
          task {shown.taskId} · gold {shown.gold ?? '?'} · served by <code>{shown.version}</code> · {shown.turns} turns
        </span>
      </div>
      <p className="question">
        <span className="muted">Homework:</span> {shown.question}
      </p>
      <HighlightedReply text={shown.firstReply} verdict={shown.verdict} testId="first-reply" />
      <VerdictChips verdict={shown.verdict} />
      <HighlightLegend />
      {shown.reaction !== null && (
        <p className="reaction">
          <span className="muted">Student:</span> {shown.reaction}
        </p>
      )}
    </section>
  );
}
