import { useState } from 'react';
import type { BadCandidateKind, CandidateView, InjectionView } from '../../../../src/contract/labRuns';
import { BAD_CANDIDATE_KINDS, MAX_QUEUED_INJECTIONS } from '../../../../src/contract/labRuns';
import { stateLabel } from '../../lib/lifecycle';
import { duration } from '../../lib/runProgress';
import { isPendingAny, type Pending } from '../../stores/labRunStore';
import { useNow } from '../useNow';

/** What each bad kind is, in a line (docs/design.md, Injected bad candidates), and whether building it takes a while. */
const KIND_NOTES: Record<BadCandidateKind, string> = {
  'random-noise': 'Gaussian factors at twice the update-norm bound: verify must stop it',
  'reward-inverted': 'trained by real gradient steps toward markdown (about a minute to build): well-formed, only the probes catch it',
  collapsed: 'trained to end every reply at once, empty replies (takes a while to build)',
  'nan-inf': 'a healthy adapter with NaN and ±Inf values',
  'wrong-shape': 'one LoRA factor of the wrong rank',
  'corrupted-bytes': 'bytes damaged after the manifest recorded their hash',
};

/** One injection request: where it is (queued with its place, building for how long, staged as which candidate, or why it failed). */
function RequestRow({ injection, candidate, now }: { injection: InjectionView; candidate: CandidateView | undefined; now: number }) {
  const i = injection;
  let where: string;
  switch (i.state) {
    case 'queued':
      where = i.queuePosition === 0 ? 'queued: next, after the one being built' : `queued: ${(i.queuePosition ?? 0) + 1} in line`;
      break;
    case 'building':
      where = `building… ${duration((now - Date.parse(i.startedAt ?? i.requestedAt)) / 1000)}`;
      break;
    case 'staged':
      where = `staged as ${i.candidate ?? '?'}${candidate === undefined ? '' : ` → ${stateLabel(candidate)}`}`;
      break;
    case 'failed':
      where = `failed: ${i.error ?? ''}`;
      break;
  }
  return (
    <li className={`injection-request injection-${i.state}`} data-testid={`injection-request-${i.id}`} data-state={i.state} data-candidate={i.candidate ?? ''}>
      <strong>{i.id}</strong> {i.kind} — <span className={i.state === 'failed' ? 'text-bad' : i.state === 'staged' ? '' : 'text-warn'}>{where}</span>
      {i.state === 'building' && <span className="spinner" aria-hidden="true" />}
    </li>
  );
}

/**
 * Bad-candidate injection: the candidate enters through `staged` like the
 * trainer's and must end rejected; each injection shows serving before it
 * and at the gate's decision. Requests are built in the background, one at
 * a time: the page — Confirm, Reject, Stop, another Inject — stays live.
 */
export function InjectCard({
  candidates,
  injections,
  pending,
  canAct,
  onInject,
}: {
  candidates: readonly CandidateView[];
  injections: readonly InjectionView[];
  pending: Pending;
  canAct: boolean;
  onInject: (kind: BadCandidateKind) => void;
}) {
  const [kind, setKind] = useState<BadCandidateKind>('nan-inf');
  const active = injections.filter((i) => i.state === 'queued' || i.state === 'building');
  const now = useNow(1000, active.length > 0);
  const queued = injections.filter((i) => i.state === 'queued').length;
  const full = queued >= MAX_QUEUED_INJECTIONS;
  // Every injected candidate of the run (from this window, another, or the CLI), newest first.
  const injected = candidates.filter((c) => c.source.kind === 'inject').reverse();
  const shownRequests = injections.slice(-6);
  return (
    <section className="card inject-card" data-testid="inject-card">
      <header className="card-header">
        <h3>Inject a bad candidate</h3>
        <span className="card-meta">it goes through the same gate and must end rejected, serving unchanged</span>
      </header>
      <div className="inject-form">
        <select value={kind} onChange={(e) => setKind(e.currentTarget.value as BadCandidateKind)} data-testid="inject-kind">
          {BAD_CANDIDATE_KINDS.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="button danger"
          data-testid="inject-button"
          disabled={!canAct || full || isPendingAny(pending, 'inject')}
          title={full ? `${queued} requests are waiting; the next can be asked for once one has been built` : undefined}
          onClick={() => onInject(kind)}
        >
          {active.length > 0 ? 'Inject another' : 'Inject'}
        </button>
        <span className="muted small">{KIND_NOTES[kind]}</span>
      </div>
      {shownRequests.length > 0 && (
        <ul className="injection-requests" data-testid="injection-requests">
          {shownRequests.map((i) => (
            <RequestRow key={i.id} injection={i} candidate={candidates.find((c) => c.id === i.candidate)} now={now} />
          ))}
        </ul>
      )}
      {full && <p className="text-warn small">{queued} requests are waiting behind the one being built: the next can be asked for once one has been built.</p>}
      {injected.length > 0 && (
        <table className="mini-table" data-testid="injections">
          <thead>
            <tr>
              <th>candidate</th>
              <th>kind</th>
              <th>serving before</th>
              <th>gate</th>
              <th>serving after</th>
            </tr>
          </thead>
          <tbody>
            {injected.map((c) => {
              const before = c.servingAtStage;
              const after = c.servingAtDecision;
              const unchanged = after !== null && after.version === before.version && after.sha256 === before.sha256;
              return (
                <tr key={c.id} data-testid={`injection-${c.id}`} data-state={c.state}>
                  <td>{c.id}</td>
                  <td>{c.source.kind === 'inject' ? c.source.badKind : ''}</td>
                  <td>
                    <code>{before.version}</code>
                  </td>
                  <td className={c.state === 'rejected' ? 'text-good' : c.state === 'promoted' ? 'text-bad' : ''}>
                    {stateLabel(c)}
                    {c.reason !== null && <div className="small muted">{c.reason.detail}</div>}
                  </td>
                  <td data-testid="serving-after">
                    {after === null ? (
                      <span className="muted">pending</span>
                    ) : (
                      <>
                        <code>{after.version}</code> <span className={unchanged ? 'text-good' : 'text-bad'}>{unchanged ? 'unchanged ✓' : 'CHANGED'}</span>
                      </>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
