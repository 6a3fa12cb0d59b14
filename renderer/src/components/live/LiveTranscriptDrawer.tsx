import type { LiveTranscriptState } from '../../stores/liveStore';
import { TranscriptDrawerShell } from '../transcript/TranscriptDrawerShell';
import { TranscriptTurnCard } from '../transcript/TranscriptTurnCard';
import { RECOGNISED_TEXT } from './ConversationsCard';
import { trainedInText } from './LiveSessionsCard';

/** A journaled live session, whole: each message the client sent, each reply, and how it was judged. */
export function LiveTranscriptDrawer({ session, state, onClose }: { session: number; state: LiveTranscriptState | undefined; onClose: () => void }) {
  const transcript = state?.status === 'loaded' ? state.transcript : null;
  return (
    <TranscriptDrawerShell
      label={`Live session ${session} transcript`}
      testId="live-transcript"
      closeTestId="live-transcript-close"
      session={session}
      status={state?.status ?? 'loading'}
      error={state?.status === 'error' ? state.message : null}
      title={
        <>
          Session {session}
          {transcript !== null && <> · {transcript.name}</>}
        </>
      }
      meta={
        transcript !== null && (
          <p className="muted small">
            recognised by its {RECOGNISED_TEXT[transcript.recognisedBy]} · {transcript.turns.length} turn{transcript.turns.length === 1 ? '' : 's'} ·{' '}
            {transcript.training.samples} to train · trained in: {trainedInText(transcript.training)}
            {transcript.training.excluded !== null && <> · excluded from training ({transcript.training.excluded.reason})</>}
          </p>
        )
      }
      onClose={onClose}
    >
      {transcript?.turns.map((turn) => (
        <TranscriptTurnCard
          key={turn.turn}
          turn={turn}
          speaker="Client"
          title={`Turn ${turn.turn + 1} · reply`}
          testId="live-transcript-turn"
          judgmentTestId="live-turn-judgment"
          showNextState
        />
      ))}
    </TranscriptDrawerShell>
  );
}
