import type { SessionView } from '../../../../src/contract/labRuns';
import type { SessionTrainingView } from '../../../../src/contract/labLive';
import { ExcludeControl } from './ExcludeControl';
import { RECOGNISED_TEXT } from './ConversationsCard';

/** Which trainer steps used a session's turns, in words. */
export function trainedInText(training: SessionTrainingView): string {
  if (training.trainedIn.length === 0) return training.excluded !== null ? 'never (excluded)' : training.samples === 0 ? '—' : 'not yet';
  return training.trainedIn.map((t) => `step ${t.step}`).join(', ');
}

function Status({ s }: { s: SessionView }) {
  const excluded = s.training.excluded;
  if (excluded === null) return <span className="badge badge-good">in training</span>;
  return (
    <span className="excluded-note" data-testid={`excluded-${s.session}`}>
      <span className="badge badge-bad">excluded</span>{' '}
      <span className="small muted" title={excluded.reason}>
        {excluded.reason}
        {excluded.trainedIn.length > 0 && <> · already in {excluded.trainedIn.join(', ')}</>}
      </span>
    </span>
  );
}

/**
 * The journaled live sessions, newest first: how each was recognised, its
 * judged turns and the samples they gave, the trainer steps that used them,
 * and a person's exclusion. A row opens its transcript.
 */
export function LiveSessionsCard({
  sessions,
  canExclude,
  onOpen,
  onExclude,
}: {
  sessions: readonly SessionView[];
  canExclude: boolean;
  onOpen: (session: number) => void;
  /** Asks the lab to exclude a session; true once it did. */
  onExclude: (session: number, reason: string) => Promise<boolean>;
}) {
  const live = [...sessions].filter((s) => s.live !== null).reverse();
  return (
    <section className="card" data-testid="live-sessions" data-count={live.length}>
      <header className="card-header">
        <h3>Sessions</h3>
        <span className="card-meta">each reply judged by what came next · excluded sessions never reach the trainer again</span>
      </header>
      {live.length === 0 ? (
        <p className="muted small">No session journaled yet.</p>
      ) : (
        <table className="mini-table live-sessions-table">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Conversation</th>
              <th scope="col">Turns</th>
              <th scope="col">Judged</th>
              <th scope="col">PRM mean</th>
              <th scope="col">To train</th>
              <th scope="col">Trained in</th>
              <th scope="col">Status</th>
              <th scope="col" aria-label="Actions" />
            </tr>
          </thead>
          <tbody>
            {live.map((s) => (
              <tr
                key={s.session}
                data-testid={`live-session-${s.session}`}
                data-name={s.live?.name}
                data-excluded={s.training.excluded === null ? 'no' : 'yes'}
                data-samples={s.training.samples}
              >
                <td>{s.session}</td>
                <td>
                  <button type="button" className="link-button" data-testid={`open-transcript-${s.session}`} onClick={() => onOpen(s.session)}>
                    {s.live?.name}
                  </button>
                  <span className="small muted"> · {s.live?.recognisedBy === null || s.live === null ? 'unread' : RECOGNISED_TEXT[s.live.recognisedBy]}</span>
                </td>
                <td>{s.turns}</td>
                <td>{s.training.judgedTurns ?? '—'}</td>
                <td>{s.training.prmMean === null ? '—' : s.training.prmMean.toFixed(2)}</td>
                <td>{s.training.samples}</td>
                <td data-testid={`trained-in-${s.session}`}>{trainedInText(s.training)}</td>
                <td>
                  <Status s={s} />
                </td>
                <td>
                  {canExclude && s.training.excluded === null && (
                    <ExcludeControl
                      subject={String(s.session)}
                      label={`session ${s.session}`}
                      request={`exclude ${s.session}`}
                      onExclude={(reason) => onExclude(s.session, reason)}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
