import { useEffect, useRef } from 'react';
import type { TranscriptTurnView, TranscriptView } from '../../../../src/contract/labRuns';
import { verdictSummary } from '../../lib/highlight';
import type { TranscriptState } from '../../stores/transcriptStore';
import { HighlightedReply, HighlightLegend, VerdictChips } from './HighlightedReply';

const ENDED_BY: Record<NonNullable<TranscriptView['endedBy']>, string> = {
  done: 'the student said HOMEWORK_DONE',
  'max-turns': 'the turn budget ran out',
  'context-full': 'the context was full',
};

const TRAINING: Record<NonNullable<TranscriptTurnView['training']>, string> = {
  both: 'trains: Binary RL and OPD',
  'opd-only': 'trains: OPD only (hint, reward 0)',
  'rl-only': 'trains: Binary RL only',
  none: 'does not train',
};

function Judgment({ turn }: { turn: TranscriptTurnView }) {
  if (turn.nextState === null) return <p className="judgment muted">Not judged: no reaction followed the last allowed reply.</p>;
  return (
    <div className="judgment" data-testid="turn-judgment" data-reward={turn.reward ?? 'none'}>
      <span className="who">Judged from the student&apos;s reaction</span>
      reward{' '}
      <strong className={turn.reward === 1 ? 'reward-pos' : turn.reward === -1 ? 'reward-neg' : ''}>
        {turn.reward === null ? '—' : turn.reward > 0 ? '+1' : turn.reward}
      </strong>
      {' · '}
      {turn.hint === null ? (
        'no hint'
      ) : (
        <>
          hint{turn.hint.accepted ? '' : ' (not accepted: too short)'}: <span className="hint">“{turn.hint.text}”</span>
        </>
      )}
      {turn.training !== null && <> · {TRAINING[turn.training]}</>}
      {turn.skipped !== null && <span className="text-warn"> · no sample: {turn.skipped}</span>}
    </div>
  );
}

function Turn({ turn, scored }: { turn: TranscriptTurnView; scored: boolean }) {
  return (
    <article className="turn" data-testid="transcript-turn" data-turn={turn.turn} data-markers={turn.verdict?.markers.length ?? 0}>
      <p className="student-message">
        <span className="who">Student</span>
        {turn.user}
      </p>
      <div className="turn-title">
        <strong>
          Turn {turn.turn + 1} · agent{scored ? ' · the scored first reply' : ''}
        </strong>
        <span>
          served by <code>{turn.version}</code> · {turn.completionTokens} tokens · {turn.finishReason === 'length' ? 'cut at max_tokens' : 'finished'}
        </span>
        {turn.verdict !== null && <span className={turn.verdict.accepted ? 'yes' : 'no'}>{verdictSummary(turn.verdict)}</span>}
      </div>
      {turn.verdict === null ? (
        <div className="reply">{turn.reply}</div>
      ) : (
        <>
          <HighlightedReply text={turn.reply} verdict={turn.verdict} testId="transcript-reply" />
          <VerdictChips verdict={turn.verdict} />
        </>
      )}
      <Judgment turn={turn} />
    </article>
  );
}

/**
 * A session's whole conversation, every turn — not only the scored first
 * reply — each reply with the verifier's markers highlighted where they
 * occur, and how the student's reaction was judged. Esc or × closes it.
 */
export function TranscriptDrawer({ session, state, onClose }: { session: number; state: TranscriptState | undefined; onClose: () => void }) {
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
  const last = transcript?.turns.at(-1);
  return (
    <>
      <div className="drawer-backdrop" onClick={onClose} />
      <aside
        className="drawer"
        role="dialog"
        aria-modal="true"
        aria-label={`Session ${session} transcript`}
        data-testid="transcript-drawer"
        data-session={session}
        data-status={state?.status ?? 'loading'}
      >
        <header className="drawer-header">
          <div>
            <h2>
              Session {session}
              {transcript !== null && (
                <>
                  {' '}
                  · {transcript.taskId}{' '}
                  <span className={transcript.accepted ? 'badge badge-good' : 'badge badge-bad'}>{transcript.accepted ? 'accepted' : 'not accepted'}</span>
                </>
              )}
            </h2>
            {transcript !== null && (
              <p className="muted small">
                gold {transcript.gold} · {transcript.turns.length} turn{transcript.turns.length === 1 ? '' : 's'}
                {transcript.endedBy !== null && <> · ended because {ENDED_BY[transcript.endedBy]}</>}
              </p>
            )}
          </div>
          <button
            ref={closeButton}
            type="button"
            className="button secondary small"
            data-testid="transcript-close"
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
            <>
              <p className="question">
                <span className="muted">Homework:</span> {state.transcript.question}
              </p>
              <HighlightLegend />
              {state.transcript.turns.map((turn) => (
                <Turn key={turn.turn} turn={turn} scored={turn.turn === 0} />
              ))}
              {last !== undefined && last.nextState !== null && (
                <p className="student-message" data-testid="transcript-last-student">
                  <span className="who">Student</span>
                  {last.nextState}
                </p>
              )}
            </>
          )}
        </div>
      </aside>
    </>
  );
}
