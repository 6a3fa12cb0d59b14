import type { LoadedRun, PublishedResult } from '../../../electron/contract/runs';
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

export function SummaryTiles({ run, published }: { run: LoadedRun; published: PublishedResult | null }) {
  const { summary } = run;
  const adapted = summary.adaptationSession;
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
        label="Adaptation"
        value={adapted === null ? 'Not reached' : `Session ${adapted}`}
        detail={adapted === null ? `no 3 accepts in a row in ${summary.sessionCount}` : 'starts 3 accepts in a row'}
        tone={adapted === null ? 'bad' : 'good'}
      />
      <Tile
        testId="tile-published"
        label="Published (Reef)"
        value={published === null ? '—' : `Session ${published.adaptationSession}`}
        detail={
          published === null || adapted === null
            ? 'reference marker'
            : adapted <= published.adaptationSession
              ? `${published.adaptationSession - adapted} sessions earlier`
              : `${adapted - published.adaptationSession} sessions later`
        }
        tone="warn"
      />
      <Tile label="Bold" value={trend(run, 'bold')} detail="first 10 → last 10 sessions" />
      <Tile label="List" value={trend(run, 'list')} detail="first 10 → last 10 sessions" />
      <Tile label="Style-clean" value={trend(run, 'style_clean')} detail="first 10 → last 10 sessions" />
    </div>
  );
}
