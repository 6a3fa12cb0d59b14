import { useMemo, useState } from 'react';
import type { MarkerKind, SessionView } from '../../../../src/contract/labRuns';
import { MARKER_LABELS } from '../../lib/highlight';
import { nextSort, SESSION_COLUMNS, sortSessions, type SessionColumnKey, type SessionSort } from '../../lib/sessionSort';

/** A marker kind in a word, for a narrow column (the criterion's words are in the chip's title). */
const SHORT_MARKER: Record<MarkerKind, string> = {
  bold: 'bold',
  header: 'header',
  bullet: 'bullet',
  numbered: 'numbered',
  boxed: '\\boxed',
  'final-answer': 'final answer',
  'rule-line': 'rule/table',
};

/** The markers of a reply by kind, most frequent first: "bold ×2". */
function markerCounts(session: SessionView): [string, number][] {
  const byKind = new Map<string, number>();
  for (const marker of session.verdict.markers) byKind.set(marker.kind, (byKind.get(marker.kind) ?? 0) + 1);
  return [...byKind].sort((a, b) => b[1] - a[1]);
}

function Cell({ column, session }: { column: SessionColumnKey; session: SessionView }) {
  switch (column) {
    case 'session':
      return <td className="num">{session.session}</td>;
    case 'task':
      return <td>{session.taskId}</td>;
    case 'gold':
      return <td className="num">{session.gold ?? '?'}</td>;
    case 'accepted':
      return <td className={session.accepted ? 'yes' : 'no'}>{session.accepted ? '✓ yes' : '✗ no'}</td>;
    case 'markers': {
      const counts = markerCounts(session);
      return (
        <td className="markers" data-markers={session.verdict.markers.length}>
          {counts.length === 0 ? (
            <span className="muted">none</span>
          ) : (
            <span className="markers-cell">
              {counts.map(([kind, n]) => (
                <span key={kind} className="chip chip-marker" title={MARKER_LABELS[kind as MarkerKind]}>
                  {SHORT_MARKER[kind as MarkerKind]} ×{n}
                </span>
              ))}
            </span>
          )}
        </td>
      );
    }
    case 'shownWork':
      return <td className="num">{session.verdict.shownWork.length}</td>;
    case 'goldFound':
      return <td className={session.verdict.goldAt === null ? 'no' : 'yes'}>{session.verdict.goldAt === null ? '✗ no' : '✓ yes'}</td>;
    case 'turns':
      return <td className="num">{session.turns}</td>;
    case 'version':
      return (
        <td>
          <code>{session.version}</code>
        </td>
      );
    case 'reward':
      return (
        <td className={`num ${session.reward === 1 ? 'reward-pos' : session.reward === -1 ? 'reward-neg' : ''}`}>
          {session.reward === null ? '—' : session.reward > 0 ? '+1' : String(session.reward)}
        </td>
      );
    case 'hint':
      return (
        <td className="hint-cell" title={session.hint === null ? '' : `${session.hint.text}${session.hint.accepted ? '' : ' (not accepted: too short)'}`}>
          {session.hint === null ? <span className="muted">—</span> : <span className="hint-text">{session.hint.text}</span>}
        </td>
      );
  }
}

/**
 * Every session of the run, one row each, as it streams in: what the
 * verifier found in the first reply and how the student's reaction was
 * judged. Sortable by any column; a row opens the session's whole transcript.
 */
export function SessionsTable({
  sessions,
  openSession,
  onOpen,
}: {
  sessions: readonly SessionView[];
  openSession: number | null;
  onOpen: (session: number) => void;
}) {
  const [sort, setSort] = useState<SessionSort>({ key: 'session', direction: 'ascending' });
  const rows = useMemo(() => sortSessions(sessions, sort), [sessions, sort]);
  return (
    <section className="card" data-testid="sessions-table-card">
      <header className="card-header">
        <h3>Sessions</h3>
        <span className="card-meta">
          {sessions.length} so far · the first reply's verdict, and the PRM's judgment of the student's reaction · click a row for the whole conversation
        </span>
      </header>
      {sessions.length === 0 ? (
        <p className="muted small">No session has completed yet.</p>
      ) : (
        <div className="sessions-scroll">
          <table className="sessions-table" data-testid="sessions-table" data-sort={`${sort.key}:${sort.direction}`}>
            <thead>
              <tr>
                {SESSION_COLUMNS.map((column) => (
                  <th key={column.key} scope="col" className={column.numeric ? 'num' : undefined} aria-sort={sort.key === column.key ? sort.direction : 'none'}>
                    <button type="button" data-testid={`sort-${column.key}`} onClick={() => setSort((current) => nextSort(current, column.key))}>
                      {column.label}
                      {sort.key === column.key ? (sort.direction === 'ascending' ? ' ▲' : ' ▼') : ''}
                    </button>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((session) => (
                <tr
                  key={session.session}
                  data-testid="sessions-row"
                  data-session={session.session}
                  className={openSession === session.session ? 'open' : undefined}
                  tabIndex={0}
                  onClick={() => onOpen(session.session)}
                  onKeyDown={(event) => {
                    if (event.key === 'Enter' || event.key === ' ') {
                      event.preventDefault();
                      onOpen(session.session);
                    }
                  }}
                >
                  {SESSION_COLUMNS.map((column) => (
                    <Cell key={column.key} column={column.key} session={session} />
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
