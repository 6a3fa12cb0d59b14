import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { isPending, useLabRunStore } from '../../stores/labRunStore';

/**
 * Excluding a session from training, in two steps: the button opens a
 * confirmation (with an optional reason); only Confirm writes the journal's
 * append-only `session-excluded` event. A step that already used the
 * session cannot be untrained: the page then names the candidates it made.
 */
export function ExcludeControl({ session, onExcluded }: { session: number; onExcluded: () => void }) {
  const { pending, exclude } = useLabRunStore(useShallow((s) => ({ pending: s.pending, exclude: s.exclude })));
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState('');
  const busy = isPending(pending, `exclude ${session}`);
  if (!asking) {
    return (
      <button
        type="button"
        className="button secondary small"
        data-testid={`exclude-${session}`}
        title="Keep this conversation out of training from now on"
        onClick={() => setAsking(true)}
      >
        Exclude…
      </button>
    );
  }
  return (
    <div className="exclude-confirm" role="group" aria-label={`Exclude session ${session} from training`} data-testid={`exclude-confirm-${session}`}>
      <input
        type="text"
        className="input small"
        placeholder="reason (optional)"
        aria-label="Why (optional)"
        maxLength={500}
        value={reason}
        data-testid={`exclude-reason-${session}`}
        onChange={(event) => setReason(event.target.value)}
      />
      <button
        type="button"
        className="button danger small"
        data-testid={`exclude-yes-${session}`}
        disabled={busy}
        onClick={() => {
          void exclude(session, reason).then((done) => {
            if (!done) return;
            setAsking(false);
            onExcluded();
          });
        }}
      >
        {busy ? 'Excluding…' : 'Exclude from training'}
      </button>
      <button type="button" className="button secondary small" disabled={busy} onClick={() => setAsking(false)}>
        Cancel
      </button>
    </div>
  );
}
