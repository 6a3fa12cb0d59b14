import type { TranscriptView } from '../../../../src/contract/labRuns';
import { verdictSummary } from '../../lib/highlight';
import type { TranscriptState } from '../../stores/transcriptStore';
import { TranscriptDrawerShell } from '../transcript/TranscriptDrawerShell';
import { TranscriptTurnCard } from '../transcript/TranscriptTurnCard';
import { HighlightedReply, HighlightLegend, VerdictChips } from './HighlightedReply';

const ENDED_BY: Record<NonNullable<TranscriptView['endedBy']>, string> = {
  done: 'the student said HOMEWORK_DONE',
  'max-turns': 'the turn budget ran out',
  'context-full': 'the context was full',
};

/**
 * A session's whole conversation, every turn — not only the scored first
 * reply — each reply with the verifier's markers highlighted where they
 * occur, and how the student's reaction was judged. Esc or × closes it.
 */
export function TranscriptDrawer({ session, state, onClose }: { session: number; state: TranscriptState | undefined; onClose: () => void }) {
  const transcript = state?.status === 'loaded' ? state.transcript : null;
  const last = transcript?.turns.at(-1);
  return (
    <TranscriptDrawerShell
      label={`Session ${session} transcript`}
      testId="transcript-drawer"
      closeTestId="transcript-close"
      session={session}
      status={state?.status ?? 'loading'}
      error={state?.status === 'error' ? state.message : null}
      title={
        <>
          Session {session}
          {transcript !== null && (
            <>
              {' '}
              · {transcript.taskId}{' '}
              <span className={transcript.accepted ? 'badge badge-good' : 'badge badge-bad'}>{transcript.accepted ? 'accepted' : 'not accepted'}</span>
            </>
          )}
        </>
      }
      meta={
        transcript !== null && (
          <p className="muted small">
            gold {transcript.gold} · {transcript.turns.length} turn{transcript.turns.length === 1 ? '' : 's'}
            {transcript.endedBy !== null && <> · ended because {ENDED_BY[transcript.endedBy]}</>}
          </p>
        )
      }
      onClose={onClose}
    >
      {transcript !== null && (
        <>
          <p className="question">
            <span className="muted">Homework:</span> {transcript.question}
          </p>
          <HighlightLegend />
          {transcript.turns.map((turn) => (
            <TranscriptTurnCard
              key={turn.turn}
              turn={turn}
              speaker="Student"
              title={`Turn ${turn.turn + 1} · agent${turn.turn === 0 ? ' · the scored first reply' : ''}`}
              verdict={turn.verdict !== null && <span className={turn.verdict.accepted ? 'yes' : 'no'}>{verdictSummary(turn.verdict)}</span>}
              reply={
                turn.verdict === null ? undefined : (
                  <>
                    <HighlightedReply text={turn.reply} verdict={turn.verdict} testId="transcript-reply" />
                    <VerdictChips verdict={turn.verdict} />
                  </>
                )
              }
              testId="transcript-turn"
              judgmentTestId="turn-judgment"
              showNextState={false}
              markers={turn.verdict?.markers.length ?? 0}
            />
          ))}
          {last !== undefined && last.nextState !== null && (
            <p className="student-message" data-testid="transcript-last-student">
              <span className="who">Student</span>
              {last.nextState}
            </p>
          )}
        </>
      )}
    </TranscriptDrawerShell>
  );
}
