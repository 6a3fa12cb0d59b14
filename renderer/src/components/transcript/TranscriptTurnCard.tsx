import type { ReactNode } from 'react';
import type { TranscriptTurnView } from '../../../../src/contract/labRuns';

const TRAINING: Record<NonNullable<TranscriptTurnView['training']>, string> = {
  both: 'trains: Binary RL and OPD',
  'opd-only': 'trains: OPD only (hint, reward 0)',
  'rl-only': 'trains: Binary RL only',
  none: 'does not train',
};

/** A reply's score, its hint, what it trains and why it gave no sample — the same for a run's turn and a live one. */
function ScoreLine({ turn }: { turn: TranscriptTurnView }) {
  return (
    <>
      PRM score{' '}
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
    </>
  );
}

/**
 * How one reply was received: the next state that judged it (shown when the
 * card's caller does not show it as the next message), its score and hint,
 * and why it gave no sample.
 */
function TurnJudgment({ turn, testId, showNextState }: { turn: TranscriptTurnView; testId: string; showNextState: boolean }) {
  if (turn.nextState === null && turn.reward === null && turn.skipped === null) {
    return <p className="judgment muted">Not judged: nothing followed this reply.</p>;
  }
  return (
    <div className="judgment" data-testid={testId} data-reward={turn.reward ?? 'none'} data-skipped={turn.skipped === null ? 'no' : 'yes'}>
      {showNextState && turn.nextState !== null && (
        <p className="next-state">
          <span className="who">What came next</span>
          {turn.nextState === '' ? <span className="muted">(nothing)</span> : turn.nextState}
        </p>
      )}
      {!showNextState && turn.nextState !== null && <span className="who">Judged from what came next</span>}
      {turn.nextState !== null && <ScoreLine turn={turn} />}
      {turn.skipped !== null && <span className="text-warn"> · no sample: {turn.skipped}</span>}
    </div>
  );
}

/**
 * One turn of a transcript: the message that asked, the reply (as the caller
 * renders it: plain, or with the verifier's markers), which version served it
 * and how it ended, and how it was judged.
 */
export function TranscriptTurnCard({
  turn,
  speaker,
  title,
  verdict,
  reply,
  testId,
  judgmentTestId,
  showNextState,
  markers,
}: {
  turn: TranscriptTurnView;
  /** Who sent the message: the scripted student, or an outside client. */
  speaker: string;
  title: string;
  /** The verdict's summary beside the title, when the reply has one. */
  verdict?: ReactNode;
  /** The reply as shown; plain text when not given. */
  reply?: ReactNode;
  testId: string;
  judgmentTestId: string;
  showNextState: boolean;
  markers?: number;
}) {
  return (
    <article className="turn" data-testid={testId} data-turn={turn.turn} {...(markers !== undefined ? { 'data-markers': markers } : {})}>
      <p className="student-message">
        <span className="who">{speaker}</span>
        {turn.user === '' ? <span className="muted">(no new message)</span> : turn.user}
      </p>
      <div className="turn-title">
        <strong>{title}</strong>
        <span>
          served by <code>{turn.version}</code> · {turn.completionTokens} tokens · {turn.finishReason === 'length' ? 'cut at max_tokens' : 'finished'}
        </span>
        {verdict}
      </div>
      {reply ?? <div className="reply">{turn.reply}</div>}
      <TurnJudgment turn={turn} testId={judgmentTestId} showNextState={showNextState} />
    </article>
  );
}
