import type { ComparedRun } from '../stores/compareStore';
import { compareSwatchStyle } from './CompareChart';

/**
 * The compared runs as a table, the way a comparison is read: which recipe,
 * seed and arm (trained, or the control that serves the base throughout),
 * how many sessions to adaptation, how many accepted. A curve without its
 * run's journal (picked files, the Reef reference) has no recipe, seed or
 * arm to show: "—".
 */
export function CompareTable({ runs }: { runs: readonly ComparedRun[] }) {
  return (
    <table className="compare-table" data-testid="compare-table">
      <thead>
        <tr>
          <th>Run</th>
          <th>Recipe</th>
          <th className="num">Seed</th>
          <th>Arm</th>
          <th className="num" title="The session that starts the first three accepted sessions in a row">
            Adaptation
          </th>
          <th className="num">Accepted</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run, i) => (
          <tr key={run.key} data-run={run.label}>
            <td>
              <span className="swatch" style={compareSwatchStyle(i)} />
              {run.label}
            </td>
            <td>{run.provenance?.recipe ?? '—'}</td>
            <td className="num">{run.provenance?.seed ?? '—'}</td>
            <td>{run.provenance?.arm ?? '—'}</td>
            <td className="num">{run.adaptationSession ?? 'never'}</td>
            <td className="num">
              {run.accepted} / {run.sessions.length}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
