import type { RefusedStepView, TrainerStepView } from '../../../../src/contract/labRuns';

const num = (value: number | null, digits = 4): string => (value === null ? '—' : Math.abs(value) >= 1000 ? value.toExponential(2) : value.toFixed(digits));

/**
 * The trainer's optimizer steps: one per batch of judged turns (trained with
 * the newest turns before it when the recipe sets a window), each making a
 * candidate for the gate. KL is shown only when the recipe configures it (a
 * configured KL must reach the objective and be logged).
 */
export function TrainerCard({
  steps,
  refused,
  batchTurns,
  windowTurns,
  klCoef,
}: {
  steps: readonly TrainerStepView[];
  refused: readonly RefusedStepView[];
  batchTurns: number;
  windowTurns: number;
  klCoef: number;
}) {
  const showKl = klCoef > 0;
  const recent = steps.slice(-8).reverse();
  return (
    <section className="card trainer-card" data-testid="trainer-card" data-steps={steps.length}>
      <header className="card-header">
        <h3>Trainer</h3>
        <span className="card-meta">
          {steps.length} step{steps.length === 1 ? '' : 's'} · one per {batchTurns} judged turns
          {windowTurns > batchTurns ? `, each on the newest ${windowTurns}` : ''}
          {showKl ? ` · KL coef ${klCoef}` : ' · no KL term configured'}
        </span>
      </header>
      {steps.length === 0 ? (
        <p className="muted small">No optimizer step yet: the first comes after {batchTurns} judged turns.</p>
      ) : (
        <div className="table-scroll">
          <table className="mini-table">
            <thead>
              <tr>
                <th>step</th>
                <th>loss</th>
                <th>pg</th>
                <th>opd</th>
                {showKl && <th>kl</th>}
                <th title="norm of the LoRA update (the gate's bound applies to it)">‖Δ‖</th>
                <th>candidate</th>
              </tr>
            </thead>
            <tbody>
              {recent.map((s) => (
                <tr
                  key={s.step}
                  data-testid="trainer-step"
                  title={`${s.samples} judged turns · after ${s.afterSessions} sessions · gradient norm ${num(s.gradNorm, 3)} · ${s.tokens ?? '?'} tokens`}
                >
                  <td className="num">{s.step}</td>
                  <td className="num">{num(s.loss, 3)}</td>
                  <td className="num">{num(s.pg, 3)}</td>
                  <td className="num">{num(s.opd, 3)}</td>
                  {showKl && <td className="num">{num(s.kl, 3)}</td>}
                  <td className="num">{num(s.updateNorm, 3)}</td>
                  <td>
                    <code>{s.version}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {refused.length > 0 && (
        <p className="text-bad small">
          {refused.length} step{refused.length === 1 ? '' : 's'} refused (no candidate made): {refused.at(-1)?.code} — {refused.at(-1)?.message}
        </p>
      )}
    </section>
  );
}
