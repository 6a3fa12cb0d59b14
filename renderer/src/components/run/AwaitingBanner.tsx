import type { CandidateView } from '../../../../src/contract/labRuns';
import { sourceLabel } from '../../lib/lifecycle';

/** Brings a candidate's card (its evidence and buttons) into view. */
export function showCandidate(id: string): void {
  document.getElementById(`candidate-card-${id}`)?.scrollIntoView({ block: 'start', behavior: 'smooth' });
}

/**
 * The decisions waiting for the person, at the top of the run page: a
 * candidate that passed every probe round stays until a person confirms or
 * rejects it (the gate never lets a newer one take it away).
 */
export function AwaitingBanner({ candidates }: { candidates: readonly CandidateView[] }) {
  if (candidates.length === 0) return null;
  return (
    <section className="awaiting-banner" role="alert" data-testid="awaiting-banner" data-count={candidates.length}>
      <strong className="awaiting-title">
        {candidates.length === 1 ? 'A candidate awaits your decision' : `${candidates.length} candidates await your decision`}
      </strong>
      <ul>
        {candidates.map((c) => (
          <li key={c.id} data-testid={`awaiting-${c.id}`}>
            <strong>{c.id}</strong> <code>{c.version}</code> <span className="muted">({sourceLabel(c)})</span> passed {c.passedRounds} of {c.roundsRequired}{' '}
            probe rounds against <code>{c.rounds.at(-1)?.serving.version ?? c.servingAtStage.version}</code>. It waits here until you confirm or reject it.{' '}
            <button type="button" className="button primary small" data-testid={`review-${c.id}`} onClick={() => showCandidate(c.id)}>
              Review {c.id}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
