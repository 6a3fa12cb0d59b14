import { useState } from 'react';
import type { CandidateView, RunHeader, ServingChangeView } from '../../../../src/contract/labRuns';
import { isPendingAny, type Decision, type Pending } from '../../stores/labRunStore';
import { shortHash } from '../../lib/format';
import { RollbackDialog } from './RollbackDialog';

/**
 * What serves: the pointer (version + sha256), its history (promotions and
 * rollbacks, each with who decided), and a rollback to an earlier promoted
 * version — asked for in a dialog that names the version, its sha256 and the
 * evidence it was promoted on; the gate re-verifies it before anything moves.
 */
export function ServingCard({
  header,
  history,
  candidates,
  pending,
  lastDecision,
  canAct,
  onRollback,
}: {
  header: RunHeader;
  history: readonly ServingChangeView[];
  candidates: readonly CandidateView[];
  pending: Pending;
  lastDecision: Decision | null;
  canAct: boolean;
  onRollback: (version: string) => void;
}) {
  const targets = header.servedVersions.filter((p) => p.version !== header.serving.version);
  const [target, setTarget] = useState<string>('');
  const chosen = targets.some((p) => p.version === target) ? target : (targets.at(-1)?.version ?? '');
  const [asking, setAsking] = useState(false);
  const rollingBack = isPendingAny(pending, 'rollback');
  const chosenPointer = targets.find((p) => p.version === chosen) ?? null;
  return (
    <section className="card serving-card" data-testid="serving-card" data-version={header.serving.version} data-sha256={header.serving.sha256}>
      <header className="card-header">
        <h3>Serving</h3>
        <span className="card-meta">only the gate moves this pointer</span>
      </header>
      <div className="pointer" title={`sha256 ${header.serving.sha256}`}>
        <span className="pointer-version" data-testid="serving-version">
          {header.serving.version}
        </span>
        <code className="pointer-hash" data-testid="serving-sha">
          sha256 {shortHash(header.serving.sha256)}
        </code>
      </div>
      {lastDecision !== null && (
        <p className="decision" data-testid="last-decision">
          {lastDecision.action === 'rollback'
            ? 'Rollback'
            : lastDecision.action === 'confirm'
              ? `Confirmed ${lastDecision.subject}`
              : `Rejected ${lastDecision.subject}`}
          : serving <code>{lastDecision.servingBefore.version}</code> → <code>{lastDecision.servingAfter.version}</code>
        </p>
      )}
      <h4 className="subhead">History</h4>
      {history.length === 0 ? (
        <p className="muted small">Serving the base model since the run started; nothing promoted yet.</p>
      ) : (
        <ol className="serving-history" data-testid="serving-history">
          {history.map((change) => (
            <li key={change.at + change.to.version}>
              <span className={change.kind === 'promoted' ? 'text-good' : 'text-warn'}>{change.kind === 'promoted' ? 'promoted' : 'rolled back'}</span>{' '}
              <code>{change.from.version}</code> → <code>{change.to.version}</code>
              <span className="muted small">
                {' '}
                · {change.candidate !== null ? `${change.candidate}, ` : ''}by {change.by} · after {change.afterSessions} sessions
                {change.reason !== null ? ` · ${change.reason}` : ''}
              </span>
            </li>
          ))}
        </ol>
      )}
      <div className="rollback">
        <label>
          Roll back to{' '}
          <select value={chosen} onChange={(e) => setTarget(e.currentTarget.value)} disabled={targets.length === 0} data-testid="rollback-target">
            {targets.length === 0 && <option value="">no earlier version</option>}
            {targets.map((p) => (
              <option key={p.version} value={p.version}>
                {p.version} ({shortHash(p.sha256)})
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          className="button secondary small"
          data-testid="rollback-button"
          disabled={!canAct || chosen === '' || rollingBack}
          onClick={() => setAsking(true)}
        >
          {rollingBack ? 'Rolling back…' : 'Roll back…'}
        </button>
      </div>
      {asking && chosenPointer !== null && (
        <RollbackDialog
          current={header.serving}
          target={chosenPointer}
          candidate={candidates.find((c) => c.state === 'promoted' && c.version === chosenPointer.version && c.sha256 === chosenPointer.sha256) ?? null}
          promotion={history.find((h) => h.kind === 'promoted' && h.to.version === chosenPointer.version) ?? null}
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            onRollback(chosenPointer.version);
          }}
        />
      )}
    </section>
  );
}
