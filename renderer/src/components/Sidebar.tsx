import { useShallow } from 'zustand/react/shallow';
import { useReferenceStore } from '../stores/referenceStore';
import { useRunStore } from '../stores/runStore';

export function Sidebar() {
  const { runs, published } = useReferenceStore(useShallow((state) => ({ runs: state.runs, published: state.published })));
  const { openReference, currentId, history } = useRunStore(
    useShallow((state) => ({ openReference: state.openReference, currentId: state.run?.summary.id ?? null, history: state.history })),
  );
  return (
    <aside className="sidebar">
      <section>
        <h2 className="section-title">Reference runs</h2>
        {runs.length === 0 && <p className="muted small">None shipped.</p>}
        <ul className="reference-list">
          {runs.map((run) => (
            <li key={run.id}>
              <button
                type="button"
                data-testid={`reference-${run.id}`}
                className={`reference-item${currentId === run.id ? ' current' : ''}`}
                onClick={() => void openReference(run.id)}
              >
                <span className="reference-title">{run.title}</span>
                <span className="reference-meta">
                  {run.model} · {run.gated ? 'with a gate' : 'no gate'} · {run.sessions} sessions
                </span>
                <span className="reference-desc">{run.description}</span>
              </button>
            </li>
          ))}
        </ul>
      </section>
      {published !== null && (
        <section>
          <h2 className="section-title">Reef&apos;s published result</h2>
          <dl className="facts" data-testid="published-facts">
            <dt>Run</dt>
            <dd>
              {published.recipe}, {published.gated ? 'with a gate' : 'no gate'}
            </dd>
            <dt>Model</dt>
            <dd>{published.model}</dd>
            <dt>Adaptation</dt>
            <dd>session {published.adaptationSession}</dd>
            <dt>Curve span</dt>
            <dd>first {published.curveSessions} sessions</dd>
          </dl>
          <p className="muted small">{published.source}</p>
        </section>
      )}
      <section>
        <h2 className="section-title">Opened in this window</h2>
        {history.length === 0 ? (
          <p className="muted small">Nothing yet.</p>
        ) : (
          <ul className="history-list">
            {history.map((summary, index) => (
              <li key={`${summary.id}-${index}`}>
                <span className="history-title">{summary.title}</span>
                <span className="muted small">
                  {summary.sessionCount} sessions · {summary.accepted} accepted ·{' '}
                  {summary.adaptationSession === null ? 'not adapted' : `adapted @${summary.adaptationSession}`}
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="sidebar-foot muted small">
        Open a run&apos;s <code>curve.csv</code> (and its <code>gate.csv</code> and <code>journal.jsonl</code>) with <em>Open run…</em> or drop them on the
        window.
      </section>
    </aside>
  );
}
