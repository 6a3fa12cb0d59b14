import { useEffect, useRef } from 'react';
import type { CandidateView, ServingChangeView, ServingPointerView } from '../../../../src/contract/labRuns';
import { sourceLabel } from '../../lib/lifecycle';

const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;

/** What a version served on: the candidate it was, the rounds it passed, who confirmed it and when. */
function Evidence({ target, candidate, promotion }: { target: ServingPointerView; candidate: CandidateView | null; promotion: ServingChangeView | null }) {
  if (target.version === 'base') {
    return (
      <p data-testid="rollback-evidence">
        The base model the run started on: no adapter, nothing to prove — every candidate was compared with it or with a version promoted over it.
      </p>
    );
  }
  if (candidate === null) {
    return (
      <p className="text-bad" data-testid="rollback-evidence">
        This run holds no gate record of {target.version}; the gate re-checks its blob before anything moves.
      </p>
    );
  }
  return (
    <div data-testid="rollback-evidence">
      <p>
        Promoted as <strong>{candidate.id}</strong> ({sourceLabel(candidate)}), confirmed by {candidate.confirmedBy ?? 'a person'}
        {promotion !== null && (
          <>
            {' '}
            after {promotion.afterSessions} sessions, at {promotion.at.replace('T', ' ').slice(0, 19)}
          </>
        )}
        , on this evidence:
      </p>
      <table className="mini-table rollback-rounds">
        <thead>
          <tr>
            <th>round</th>
            <th>vs</th>
            <th>pass</th>
            <th>gold</th>
            <th>answered</th>
            <th>markers / reply</th>
          </tr>
        </thead>
        <tbody>
          {candidate.rounds.map((r) => (
            <tr key={r.round} data-testid="rollback-round">
              <td>
                {r.round} {r.passed ? <span className="text-good">passed</span> : <span className="text-bad">failed</span>}
              </td>
              <td>
                <code>{r.serving.version}</code>
              </td>
              <td className="num">
                {pct(r.candidate.pass_rate)} <span className="muted">vs {pct(r.serving.pass_rate)}</span>
              </td>
              <td className="num">
                {pct(r.candidate.gold_rate)} <span className="muted">vs {pct(r.serving.gold_rate)}</span>
              </td>
              <td className="num">
                {pct(r.candidate.answered_rate)} <span className="muted">vs {pct(r.serving.answered_rate)}</span>
              </td>
              <td className="num">
                {r.candidate.mean_violations.toFixed(2)} <span className="muted">vs {r.serving.mean_violations.toFixed(2)}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Moving what serves is the heaviest action in the app, so it is asked for
 * here, with the version, its full sha256 and the evidence it was promoted
 * on in front of the person. The gate re-checks the blob before anything moves.
 */
export function RollbackDialog({
  current,
  target,
  candidate,
  promotion,
  onConfirm,
  onCancel,
}: {
  current: ServingPointerView;
  target: ServingPointerView;
  candidate: CandidateView | null;
  promotion: ServingChangeView | null;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    cancel.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') onCancel();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onCancel]);
  return (
    <div className="modal-backdrop" data-testid="rollback-dialog-backdrop">
      <div className="modal" role="dialog" aria-modal="true" aria-labelledby="rollback-title" data-testid="rollback-dialog" data-target={target.version}>
        <h2 id="rollback-title">Roll serving back to {target.version}?</h2>
        <dl className="modal-facts">
          <dt>Serving now</dt>
          <dd>
            <code>{current.version}</code> <code className="hash">{current.sha256}</code>
          </dd>
          <dt>Will serve</dt>
          <dd>
            <code data-testid="rollback-dialog-version">{target.version}</code>{' '}
            <code className="hash" data-testid="rollback-dialog-sha">
              {target.sha256}
            </code>
          </dd>
        </dl>
        <Evidence target={target} candidate={candidate} promotion={promotion} />
        <p className="muted small">
          New requests go to {target.version} once its blob is re-checked; requests in flight finish on {current.version}. The rollback is journaled as yours.
        </p>
        <div className="modal-actions">
          <button type="button" className="button secondary" ref={cancel} data-testid="rollback-cancel" onClick={onCancel}>
            Cancel
          </button>
          <button type="button" className="button danger" data-testid="rollback-confirm" onClick={onConfirm}>
            Roll back to {target.version}
          </button>
        </div>
      </div>
    </div>
  );
}
