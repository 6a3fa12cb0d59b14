import { useState } from 'react';
import { isPending, useLabRunStore } from '../../stores/labRunStore';

/**
 * Excluding a conversation from training, in two steps: the button opens a
 * confirmation (with an optional reason); only its confirm button asks the
 * lab, which writes the journal's append-only `session-excluded` event. A
 * step that already used a session cannot be untrained: the page then names
 * the candidates it made.
 */
export function ExcludeControl({
  subject,
  label,
  request,
  onExclude,
}: {
  /** What the test ids and the group's label name: a session number or a conversation's name. */
  subject: string;
  label: string;
  /** The request's label in the store (its pending state and refusal). */
  request: string;
  onExclude: (reason: string) => Promise<boolean>;
}) {
  const busy = useLabRunStore((s) => isPending(s.pending, request));
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState('');
  if (!asking) {
    return (
      <button
        type="button"
        className="button secondary small"
        data-testid={`exclude-${subject}`}
        title="Keep this conversation out of training from now on"
        onClick={() => setAsking(true)}
      >
        Exclude…
      </button>
    );
  }
  return (
    <div className="exclude-confirm" role="group" aria-label={`Exclude ${label} from training`} data-testid={`exclude-confirm-${subject}`}>
      <input
        type="text"
        className="input small"
        placeholder="reason (optional)"
        aria-label="Why (optional)"
        maxLength={500}
        value={reason}
        data-testid={`exclude-reason-${subject}`}
        onChange={(event) => setReason(event.target.value)}
      />
      <button
        type="button"
        className="button danger small"
        data-testid={`exclude-yes-${subject}`}
        disabled={busy}
        onClick={() => {
          void onExclude(reason).then((done) => {
            if (done) setAsking(false);
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
