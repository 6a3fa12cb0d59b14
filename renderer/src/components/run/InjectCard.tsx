import { useState } from 'react';
import type { BadCandidateKind, CandidateView } from '../../../../electron/contract/liveRuns';
import { BAD_CANDIDATE_KINDS } from '../../../../electron/contract/liveRuns';
import { stateLabel } from '../../lib/lifecycle';

/** What each bad kind is, in a line (DESIGN §4). */
const KIND_NOTES: Record<BadCandidateKind, string> = {
  'random-noise': 'Gaussian noise just under the update-norm bound: passes verify, wrecks replies',
  'reward-inverted': 'trained by real steps toward markdown: well-formed, only the probes catch it',
  collapsed: 'trained to end every reply at once (empty replies)',
  'nan-inf': 'a healthy adapter with NaN and ±Inf values',
  'wrong-shape': 'one LoRA factor of the wrong rank',
  'corrupted-bytes': 'bytes damaged after the manifest recorded their hash',
};

/**
 * Bad-candidate injection: the candidate enters through `staged` like the
 * trainer's and must end rejected; each injection shows serving before it
 * and at the gate's decision.
 */
export function InjectCard({
  candidates,
  pending,
  canAct,
  onInject,
}: {
  candidates: readonly CandidateView[];
  pending: string | null;
  canAct: boolean;
  onInject: (kind: BadCandidateKind) => void;
}) {
  const [kind, setKind] = useState<BadCandidateKind>('nan-inf');
  // Every injected candidate of the run (from this window, another, or the CLI), newest first.
  const injected = candidates.filter((c) => c.source.kind === 'inject').reverse();
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
        <button type="button" className="button danger" data-testid="inject-button" disabled={!canAct || pending !== null} onClick={() => onInject(kind)}>
          {pending?.startsWith('inject') ? 'Injecting…' : 'Inject'}
        </button>
        <span className="muted small">{KIND_NOTES[kind]}</span>
      </div>
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
