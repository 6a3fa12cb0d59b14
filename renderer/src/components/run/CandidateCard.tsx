import { useState } from 'react';
import type { CandidateView, GatedMetric, RoundCheck, RoundView, ServingPointerView } from '../../../../src/contract/labRuns';
import { isPending, type Pending } from '../../stores/labRunStore';
import { shortHash } from '../../lib/format';
import { lifecycleSteps, sourceLabel, stateLabel } from '../../lib/lifecycle';
import { ProbeReplies } from './ProbeReplies';

const METRIC_LABELS: Record<GatedMetric, string> = {
  pass_rate: 'pass (full criterion)',
  gold_rate: 'gold answer',
  answered_rate: 'answered (complete)',
  mean_violations: 'markers per reply',
};

const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;
const fmt = (metric: GatedMetric, x: number) => (metric === 'mean_violations' ? x.toFixed(2) : pct(x));

function Lifecycle({ candidate }: { candidate: CandidateView }) {
  return (
    <ol className="lifecycle" data-testid="lifecycle">
      {lifecycleSteps(candidate).map((step) => (
        <li key={step.key} className={`step step-${step.status}`} data-step={step.key} data-status={step.status}>
          {step.status === 'done' ? '✓ ' : step.status === 'failed' ? '✗ ' : step.status === 'current' ? '● ' : ''}
          {step.label}
        </li>
      ))}
    </ol>
  );
}

function CheckCell({ check }: { check: RoundCheck }) {
  // A limit below zero (serving at 0 with a margin) asks nothing: shown as ≥ 0.
  const limit = `${check.direction === 'min' ? '≥' : '≤'} ${fmt(check.metric, Math.max(0, check.limit))}`;
  const why =
    check.floor !== null && check.limit === check.floor
      ? `floor ${fmt(check.metric, check.floor)}`
      : `serving ${check.direction === 'min' ? '−' : '+'} margin ${fmt(check.metric, check.margin)}`;
  return (
    <td className={check.ok ? 'check check-ok' : 'check check-fail'} title={`needs ${limit} (${why})`} data-ok={check.ok ? 'yes' : 'no'}>
      <span className="check-mark">{check.ok ? '✓' : '✗'}</span> <strong>{fmt(check.metric, check.candidate)}</strong>
      <span className="muted"> vs {fmt(check.metric, check.serving)}</span>
      <span className="check-limit"> need {limit}</span>
    </td>
  );
}

/** Per round: the candidate against serving on the same problems and seeds, each gated metric with its limit. */
function RoundsTable({
  candidate,
  onShowReplies,
  shownRound,
}: {
  candidate: CandidateView;
  onShowReplies: (round: number) => void;
  shownRound: number | null;
}) {
  const rounds: RoundView[] = candidate.rounds;
  if (rounds.length === 0) return null;
  const metrics = rounds[0]!.checks.map((c) => c.metric);
  return (
    <div className="table-scroll">
      <table className="rounds-table" data-testid="rounds-table">
        <thead>
          <tr>
            <th>probe round</th>
            {rounds.map((r) => (
              <th key={r.round} className={r.passed ? 'text-good' : 'text-bad'}>
                round {r.round}: {r.passed ? 'passed' : 'FAILED'}
                <div className="muted small">
                  seed {r.seed} · {r.candidate.n} problems · vs <code>{r.serving.version}</code>
                </div>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {metrics.map((metric) => (
            <tr key={metric}>
              <th>{METRIC_LABELS[metric]}</th>
              {rounds.map((r) => {
                const check = r.checks.find((c) => c.metric === metric);
                return check === undefined ? <td key={r.round} /> : <CheckCell key={r.round} check={check} />;
              })}
            </tr>
          ))}
          <tr className="info-row">
            <th title="reported, never gated on alone (the floor effect)">clean (style + work) · not gated</th>
            {rounds.map((r) => (
              <td key={r.round}>
                {pct(r.candidate.clean_rate)} <span className="muted">vs {pct(r.serving.clean_rate)}</span>
              </td>
            ))}
          </tr>
          <tr className="info-row">
            <th>mean reply length</th>
            {rounds.map((r) => (
              <td key={r.round}>
                {Math.round(r.candidate.mean_chars)} <span className="muted">vs {Math.round(r.serving.mean_chars)} chars</span>
              </td>
            ))}
          </tr>
          <tr>
            <th />
            {rounds.map((r) => (
              <td key={r.round}>
                <button
                  type="button"
                  className="button secondary small"
                  aria-pressed={shownRound === r.round}
                  data-testid={`show-replies-${r.round}`}
                  onClick={() => onShowReplies(r.round)}
                >
                  {shownRound === r.round ? 'hide replies' : 'probe replies'}
                </button>
              </td>
            ))}
          </tr>
        </tbody>
      </table>
    </div>
  );
}

/**
 * What happened to this candidate — promoted or rejected, by whom, why — and
 * what served at that moment; what serves now is a line of its own.
 */
function Outcome({ candidate: c }: { candidate: CandidateView }) {
  const staged = c.servingAtStage.version;
  const atDecision = c.servingAtDecision?.version ?? null;
  if (c.reason !== null) {
    const byPerson = c.reason.code === 'person';
    const moved = atDecision !== null && atDecision !== staged;
    return (
      <p className="reason" data-testid="candidate-outcome">
        <strong data-testid="candidate-reason">
          {byPerson ? 'Rejected by a person' : `Rejected by the gate — ${c.reason.code}${c.reason.metric !== null ? ` on ${c.reason.metric}` : ''}`}:{' '}
          {c.reason.detail}
        </strong>
        {atDecision !== null && (
          <span className="muted">
            {' '}
            · serving stayed <code>{atDecision}</code>
            {moved && (
              <>
                {' '}
                (it had moved from <code>{staged}</code> while {c.id} waited)
              </>
            )}
          </span>
        )}
      </p>
    );
  }
  if (c.state === 'promoted') {
    return (
      <p className="pointer-line small" data-testid="candidate-outcome">
        <strong className="text-good">Promoted, confirmed {c.confirmedBy === 'auto' ? 'by the gate (confirm: auto)' : 'by a person'}</strong>
        <span className="muted">
          {' '}
          · serving when staged <code>{staged}</code>
        </span>
      </p>
    );
  }
  if (c.state === 'superseded') {
    return (
      <p className="pointer-line small muted" data-testid="candidate-outcome">
        Superseded by {c.supersededBy ?? 'a newer trainer candidate'} before probing (its steps contain this one&apos;s) · serving when staged{' '}
        <code>{staged}</code>
      </p>
    );
  }
  return (
    <p className="pointer-line small" data-testid="candidate-pointer">
      serving when staged <code>{staged}</code>
      <span className="muted"> · undecided</span>
    </p>
  );
}

/**
 * One candidate in the gate: where it is in its lifecycle, why it was
 * rejected, the evidence of every probe round, and — when it awaits a
 * person — Confirm and Reject. The buttons only ask; the gate decides.
 */
export function CandidateCard({
  candidate,
  serving,
  pending,
  canAct,
  onConfirm,
  onReject,
}: {
  candidate: CandidateView;
  /** What serves now: a candidate probed against another version cannot be confirmed (the gate refuses it). */
  serving: ServingPointerView;
  pending: Pending;
  canAct: boolean;
  onConfirm: (id: string) => void;
  onReject: (id: string, reason: string) => void;
}) {
  const [shownRound, setShownRound] = useState<number | null>(null);
  const [reason, setReason] = useState('');
  const c = candidate;
  const awaiting = c.state === 'awaiting-confirm';
  const probedAgainst = c.rounds.at(-1)?.serving.version ?? c.servingAtStage.version;
  const stale = awaiting && probedAgainst !== serving.version;
  const confirming = isPending(pending, `confirm ${c.id}`);
  const rejecting = isPending(pending, `reject ${c.id}`);
  return (
    <article
      className={`candidate candidate-${c.state}`}
      id={`candidate-card-${c.id}`}
      data-testid={`candidate-${c.id}`}
      data-state={c.state}
      data-source={c.source.kind}
      data-held={c.heldForPerson ? 'yes' : 'no'}
    >
      <header className="candidate-header">
        <h4>
          {c.id} <code>{c.version}</code>
        </h4>
        <span className="muted small">
          {sourceLabel(c)} · staged after {c.stagedAfterSessions} sessions · sha256 {shortHash(c.sha256)}
          {c.updateNorm !== null && ` · update ‖·‖ ${c.updateNorm.toFixed(2)} (bound ${c.maxUpdateNorm})`}
        </span>
        <span className={`state-badge state-${c.state}`} data-testid="candidate-state">
          {stateLabel(c)}
        </span>
      </header>
      <Lifecycle candidate={c} />
      {c.heldForPerson && (
        <p className="muted small" data-testid="candidate-held">
          Held after verify: a candidate awaits your decision, and the gate probes the trainer&apos;s newest candidate only once you have decided — against
          whatever serves then.
        </p>
      )}
      <Outcome candidate={c} />
      {c.servingAtDecision !== null && (
        <p className="pointer-line small muted" data-testid="candidate-serving-now">
          serving now: <code>{serving.version}</code>
        </p>
      )}
      <RoundsTable candidate={c} shownRound={shownRound} onShowReplies={(round) => setShownRound(shownRound === round ? null : round)} />
      {shownRound !== null && <ProbeReplies candidate={c.id} round={shownRound} />}
      {awaiting && (
        <div className="decide" data-testid="decide">
          <p>
            {c.id} passed {c.passedRounds} of {c.roundsRequired} rounds against <code>{probedAgainst}</code>. Read the evidence, then decide: Confirm promotes
            it (the gate re-verifies the blob first); Reject keeps <code>{serving.version}</code> serving. It waits here until you decide: no newer candidate
            takes its place.
          </p>
          {stale && (
            <p className="text-bad small" data-testid="confirm-stale">
              {serving.version} serves now, not {probedAgainst}: this evidence no longer compares {c.id} with what serves, so the gate will not promote it.
              Reject it; the trainer&apos;s next candidate is probed against {serving.version}.
            </p>
          )}
          <button
            type="button"
            className="button primary"
            data-testid="confirm-button"
            disabled={!canAct || confirming || rejecting || stale}
            onClick={() => onConfirm(c.id)}
          >
            {confirming ? 'Confirming…' : `Confirm ${c.id}`}
          </button>
          <input
            type="text"
            className="reason-input"
            placeholder="why (optional)"
            value={reason}
            maxLength={500}
            onChange={(e) => setReason(e.currentTarget.value)}
          />
          <button
            type="button"
            className="button danger"
            data-testid="reject-button"
            disabled={!canAct || confirming || rejecting}
            onClick={() => onReject(c.id, reason.trim() === '' ? 'rejected by a person in the desktop' : reason.trim())}
          >
            {rejecting ? 'Rejecting…' : `Reject ${c.id}`}
          </button>
        </div>
      )}
    </article>
  );
}
