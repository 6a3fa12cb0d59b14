import type { OpenConversationView, RecognisedBy } from '../../../../src/contract/labLive';
import { ExcludeControl } from './ExcludeControl';

export const RECOGNISED_TEXT: Record<RecognisedBy, string> = {
  header: 'X-Session-Id header',
  affinity: 'session-affinity header',
  prefix: 'message prefix',
};

/**
 * The conversations going on now, not yet journaled: a reply is judged when
 * the next request shows what came after it; the session is journaled when
 * its client says it is done, it goes quiet, or live mode stops.
 */
export function ConversationsCard({
  open,
  serving,
  onExclude,
}: {
  open: readonly OpenConversationView[];
  serving: boolean;
  /** Asks the lab to keep a conversation out of training once journaled; true once it agreed. */
  onExclude: (name: string, reason: string) => Promise<boolean>;
}) {
  return (
    <section className="card" data-testid="live-open" data-count={open.length}>
      <header className="card-header">
        <h3>Open conversations</h3>
        <span className="card-meta">journaled when done, after a quiet spell, or at stop</span>
      </header>
      {open.length === 0 ? (
        <p className="muted small">{serving ? 'None right now: point a client at the base URL and talk to it.' : 'None: live mode does not serve here.'}</p>
      ) : (
        <table className="mini-table">
          <thead>
            <tr>
              <th scope="col">Conversation</th>
              <th scope="col">Recognised by</th>
              <th scope="col">Turns</th>
              <th scope="col">Judged</th>
              <th scope="col">To train</th>
              <th scope="col">Last turn</th>
            </tr>
          </thead>
          <tbody>
            {open.map((o) => (
              <tr key={o.name} data-testid={`open-${o.name}`} data-turns={o.turns} data-judged={o.judged}>
                <td>
                  <code>{o.name}</code>
                  <div className="open-training" data-testid={`open-training-${o.name}`}>
                    {o.exclusion !== null ? (
                      <span className="small" title={o.exclusion}>
                        <span className="badge badge-bad">excluded</span> once journaled
                      </span>
                    ) : (
                      <ExcludeControl subject={o.name} label={o.name} request={`exclude ${o.name}`} onExclude={(reason) => onExclude(o.name, reason)} />
                    )}
                  </div>
                </td>
                <td>{RECOGNISED_TEXT[o.recognisedBy]}</td>
                <td>
                  {o.turns}
                  {o.helperTurns > 0 && (
                    <div
                      className="muted small"
                      data-testid={`open-helpers-${o.name}`}
                      title="the agent's own helper runs (compaction, memory flush): served, not trained"
                    >
                      + {o.helperTurns} helper run{o.helperTurns === 1 ? '' : 's'}, not trained
                    </div>
                  )}
                </td>
                <td>{o.judged}</td>
                <td>{o.toTrain}</td>
                <td>{new Date(o.lastTurnAt).toLocaleTimeString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
