import { useEffect, useRef } from 'react';
import type { TranscriptTurnView } from '../../../../src/contract/labRuns';
import type { LiveTranscriptState } from '../../stores/liveStore';
import { RECOGNISED_TEXT } from './ConversationsCard';
import { trainedInText } from './LiveSessionsCard';

const TRAINING: Record<NonNullable<TranscriptTurnView['training']>, string> = {
  both: 'trains: Binary RL and OPD',
  'opd-only': 'trains: OPD only (hint, reward 0)',
  'rl-only': 'trains: Binary RL only',
  none: 'does not train',
};

/** How one reply was received: the next state that judged it, its score and hint, and why it gave no sample. */
function Judgment({ turn }: { turn: TranscriptTurnView }) {
  return (
    <div className="judgment" data-testid="live-turn-judgment" data-reward={turn.reward ?? 'none'} data-skipped={turn.skipped === null ? 'no' : 'yes'}>
      {turn.nextState !== null && (
        <p className="next-state">
          <span className="who">What came next</span>
          {turn.nextState === '' ? <span className="muted">(nothing)</span> : turn.nextState}
        </p>
      )}
      {turn.reward !== null && (
        <>
          PRM score{' '}
          <strong className={turn.reward === 1 ? 'reward-pos' : turn.reward === -1 ? 'reward-neg' : ''}>{turn.reward > 0 ? '+1' : turn.reward}</strong>
          {' · '}
          {turn.hint === null ? (
            'no hint'
          ) : (
            <>
              hint{turn.hint.accepted ? '' : ' (not accepted: too short)'}: “{turn.hint.text}”
            </>
          )}
          {turn.training !== null && <> · {TRAINING[turn.training]}</>}
        </>
      )}
      {turn.skipped !== null && (
        <span className="text-warn">
          {' '}
          {turn.reward !== null ? '· ' : ''}no sample: {turn.skipped}
        </span>
      )}
    </div>
  );
}

/** A journaled live session, whole: each message the client sent, each reply, and how it was judged. */
export function LiveTranscriptDrawer({ session, state, onClose }: { session: number; state: LiveTranscriptState | undefined; onClose: () => void }) {
  const closeButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    closeButton.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  const transcript = state?.status === 'loaded' ? state.transcript : null;
  return (
    <>
      <div className="drawer-backdrop" onClick={onClose} />
      <aside
        className="drawer"
        role="dialog"
        aria-modal="true"
        aria-label={`Live session ${session} transcript`}
        data-testid="live-transcript"
        data-session={session}
        data-status={state?.status ?? 'loading'}
      >
        <header className="drawer-header">
          <div>
            <h2>
              Session {session}
              {transcript !== null && <> · {transcript.name}</>}
            </h2>
            {transcript !== null && (
              <p className="muted small">
                recognised by its {RECOGNISED_TEXT[transcript.recognisedBy]} · {transcript.turns.length} turn{transcript.turns.length === 1 ? '' : 's'} ·{' '}
                {transcript.training.samples} to train · trained in: {trainedInText(transcript.training)}
                {transcript.training.excluded !== null && <> · excluded from training ({transcript.training.excluded.reason})</>}
              </p>
            )}
          </div>
          <button
            ref={closeButton}
            type="button"
            className="button secondary small"
            data-testid="live-transcript-close"
            onClick={onClose}
            aria-label="Close the transcript"
          >
            ✕ Close
          </button>
        </header>
        <div className="drawer-body">
          {state === undefined || state.status === 'loading' ? (
            <p className="muted">Reading the transcript…</p>
          ) : state.status === 'error' ? (
            <p className="text-bad" role="alert">
              {state.message}
            </p>
          ) : (
            transcript?.turns.map((turn) => (
              <article key={turn.turn} className="turn" data-testid="live-transcript-turn" data-turn={turn.turn}>
                <p className="student-message">
                  <span className="who">Client</span>
                  {turn.user === '' ? <span className="muted">(no new message)</span> : turn.user}
                </p>
                <div className="turn-title">
                  <strong>Turn {turn.turn + 1} · reply</strong>
                  <span>
                    served by <code>{turn.version}</code> · {turn.completionTokens} tokens · {turn.finishReason === 'length' ? 'cut at max_tokens' : 'finished'}
                  </span>
                </div>
                <div className="reply">{turn.reply}</div>
                <Judgment turn={turn} />
              </article>
            ))
          )}
        </div>
      </aside>
    </>
  );
}
