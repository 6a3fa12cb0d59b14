import type { RunView } from '../../../../src/contract/labRuns';
import { isPausePhase } from '../../../../src/contract/runPhases';
import { duration, elapsedSeconds, etaSeconds, gateStateText, isLive } from '../../lib/runProgress';
import { useNow } from '../useNow';

/** The run in one line, at the top of its page: elapsed, ETA, the trainer's step in flight, the gate's state. */
export function ProgressLine({ run }: { run: RunView }) {
  const live = isLive(run);
  const now = useNow(1000, live);
  const h = run.header;
  const eta = etaSeconds(run, now);
  const step = h.progress.trainerStep;
  const awaiting = run.candidates.some((c) => c.state === 'awaiting-confirm');
  return (
    <div className="progress-line" data-testid="progress-line" role="status" aria-live="off">
      <span className="progress-item">
        <span className="progress-label">sessions</span>{' '}
        <strong data-testid="progress-sessions">
          {h.sessions.completed}/{h.sessions.planned}
        </strong>
        {h.sessions.running !== null && <span className="muted"> · #{h.sessions.running} running</span>}
      </span>
      <span
        className="progress-item"
        title="the time the run's sessions ran: a pause, the time between a stop and a resume, and anything after the run ended do not count"
      >
        <span className="progress-label">elapsed</span> <strong data-testid="progress-elapsed">{duration(elapsedSeconds(run, now))}</strong>
      </span>
      <span
        className="progress-item"
        title={
          h.progress.secondsPerSession === null
            ? 'an estimate needs two timed sessions'
            : `${duration(h.progress.secondsPerSession)} per session, the mean of the newest sessions (pauses left out)`
        }
      >
        <span className="progress-label">ETA</span>{' '}
        <strong data-testid="progress-eta">
          {h.phase === 'completed' ? 'done' : eta !== null ? `~${duration(eta)}` : isPausePhase(h.phase) ? 'paused' : live ? 'after 2 sessions' : '—'}
        </strong>
      </span>
      <span className="progress-item" data-testid="progress-trainer">
        <span className="progress-label">trainer</span>{' '}
        {step === null ? (
          <span className="muted">{live ? 'waiting for a full batch' : 'idle'}</span>
        ) : (
          <strong>
            step {step.step} in flight ({step.turns} judged turns)
          </strong>
        )}
      </span>
      <span className={`progress-item${awaiting ? ' progress-awaiting' : ''}`} data-testid="progress-gate">
        <span className="progress-label">gate</span> <strong>{gateStateText(run)}</strong>
      </span>
    </div>
  );
}
