import { useState } from 'react';
import type { CandidateView, RunHeader } from '../../../../src/contract/labRuns';
import type { Pending } from '../../stores/labRunStore';
import { stateLabel, sourceLabel } from '../../lib/lifecycle';
import { CandidateCard } from './CandidateCard';

const TERMINAL = new Set(['promoted', 'rejected', 'superseded']);

/** Awaiting a person first (oldest first: the order they came), then the gate's current work, then decisions, newest first. */
function order(candidates: readonly CandidateView[]): CandidateView[] {
  const rank = (c: CandidateView) => (c.state === 'awaiting-confirm' ? 0 : TERMINAL.has(c.state) ? 2 : 1);
  const age = (c: CandidateView) => Number(c.id.slice(1));
  return [...candidates].sort((a, b) => rank(a) - rank(b) || (rank(a) === 0 ? age(a) - age(b) : age(b) - age(a)));
}

function CompactCandidate({ candidate, onOpen }: { candidate: CandidateView; onOpen: () => void }) {
  const c = candidate;
  return (
    <li className={`candidate-compact candidate-${c.state}`} data-testid={`candidate-${c.id}`} data-state={c.state} data-source={c.source.kind}>
      <button type="button" className="link-button" onClick={onOpen}>
        {c.id}
      </button>{' '}
      <code>{c.version}</code> <span className="muted small">{sourceLabel(c)}</span> <span className={`state-badge state-${c.state}`}>{stateLabel(c)}</span>
      {c.reason !== null && <span className="small text-bad"> {c.reason.detail}</span>}
    </li>
  );
}

/**
 * The release gate: every candidate, each with its lifecycle and evidence.
 * Candidates awaiting confirmation come first; decided ones fold to a line
 * (the newest few stay open).
 */
export function GateCard({
  header,
  candidates,
  pending,
  canAct,
  onConfirm,
  onReject,
}: {
  header: RunHeader;
  candidates: readonly CandidateView[];
  pending: Pending;
  canAct: boolean;
  onConfirm: (id: string) => void;
  onReject: (id: string, reason: string) => void;
}) {
  const [opened, setOpened] = useState<Record<string, boolean>>({});
  const ordered = order(candidates);
  const newestDecided = new Set(
    ordered
      .filter((c) => TERMINAL.has(c.state))
      .slice(0, 3)
      .map((c) => c.id),
  );
  const counts = {
    awaiting: candidates.filter((c) => c.state === 'awaiting-confirm').length,
    promoted: candidates.filter((c) => c.state === 'promoted').length,
    rejected: candidates.filter((c) => c.state === 'rejected').length,
  };
  return (
    <section className="card gate-card" data-testid="gate-card" data-candidates={candidates.length}>
      <header className="card-header">
        <h3>Release gate</h3>
        <span className="card-meta">
          {candidates.length} candidate{candidates.length === 1 ? '' : 's'} · <span className="text-warn">{counts.awaiting} awaiting you</span> ·{' '}
          <span className="text-good">{counts.promoted} promoted</span> · <span className="text-bad">{counts.rejected} rejected</span> · verify →{' '}
          {header.rounds} paired probe rounds → {header.confirm === 'manual' ? 'a person confirms' : 'auto-confirm'}
        </span>
      </header>
      {candidates.length === 0 && <p className="muted small">No candidate yet: the trainer makes one per optimizer step, or inject a bad one below.</p>}
      <ul className="candidate-list">
        {ordered.map((c) =>
          !TERMINAL.has(c.state) || newestDecided.has(c.id) || opened[c.id] === true ? (
            <li key={c.id}>
              <CandidateCard candidate={c} serving={header.serving} pending={pending} canAct={canAct} onConfirm={onConfirm} onReject={onReject} />
            </li>
          ) : (
            <CompactCandidate key={c.id} candidate={c} onOpen={() => setOpened({ ...opened, [c.id]: true })} />
          ),
        )}
      </ul>
    </section>
  );
}
