import type { LoadedRun, PublishedResult, ReferenceRunInfo } from '../../../src/contract/runs';
import { windowMean } from '../lib/chartData';
import { percent } from '../lib/format';

function Tile({ label, value, detail, tone, testId }: { label: string; value: string; detail?: string; tone?: 'good' | 'bad' | 'warn'; testId?: string }) {
  return (
    <div className={`tile${tone === undefined ? '' : ` tile-${tone}`}`} data-testid={testId}>
      <div className="tile-label">{label}</div>
      <div className="tile-value">{value}</div>
      {detail !== undefined && <div className="tile-detail">{detail}</div>}
    </div>
  );
}

function trend(run: LoadedRun, key: 'bold' | 'list' | 'style_clean'): string {
  const first = windowMean(run.sessions, key, 10, 'start');
  const last = windowMean(run.sessions, key, 10, 'end');
  return `${percent(first)} → ${percent(last)}`;
}

/**
 * The run's figures, each saying what it is: the run's own adaptation (and,
 * for a reference that never adapts, why), beside Reef's published result —
 * another run (its recipe and model named), drawn as a marker for comparison.
 */
export function SummaryTiles({ run, published, reference }: { run: LoadedRun; published: PublishedResult | null; reference: ReferenceRunInfo | null }) {
  const { summary } = run;
  const adapted = summary.adaptationSession;
  const accepted = run.sessions.filter((s) => s.accept === 1).map((s) => s.session);
  return (
    <div className="tiles">
      <Tile
        testId="tile-accepted"
        label="Accepted sessions"
        value={`${summary.accepted} / ${summary.sessionCount}`}
        detail={`${percent(summary.sessionCount === 0 ? null : summary.accepted / summary.sessionCount, 1)} · sessions ${run.sessions[0]?.session ?? 0}–${run.sessions.at(-1)?.session ?? 0}`}
      />
      <Tile
        testId="tile-adaptation"
        label={reference === null ? 'Adaptation (this run)' : `Adaptation (${reference.model}, ${reference.gated ? 'gated' : 'no gate'})`}
        value={adapted === null ? 'Not reached' : `Session ${adapted}`}
        detail={
          adapted === null
            ? `never 3 accepted in a row in ${summary.sessionCount} sessions${accepted.length > 0 && accepted.length <= 3 ? ` (accepted: ${accepted.join(', ')})` : ''}`
            : 'starts 3 accepts in a row'
        }
        tone={adapted === null ? 'bad' : 'good'}
      />
      <Tile
        testId="tile-published"
        label={
          published === null
            ? 'Reef published'
            : `Reef published (${published.model.split('-').slice(0, 2).join('-')}, ${published.gated ? 'gated' : 'no gate'})`
        }
        value={published === null ? '—' : `Session ${published.adaptationSession}`}
        detail={
          published === null
            ? 'no published result'
            : adapted === null
              ? `another run (${published.recipe}); the dashed marker`
              : adapted <= published.adaptationSession
                ? `this run: ${published.adaptationSession - adapted} sessions earlier`
                : `this run: ${adapted - published.adaptationSession} sessions later`
        }
        tone="warn"
      />
      <Tile label="Bold" value={trend(run, 'bold')} detail="first 10 → last 10 sessions" />
      <Tile label="List" value={trend(run, 'list')} detail="first 10 → last 10 sessions" />
      <Tile label="Style-clean" value={trend(run, 'style_clean')} detail="first 10 → last 10 sessions" />
    </div>
  );
}
