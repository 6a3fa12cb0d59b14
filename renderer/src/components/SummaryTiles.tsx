import type { LoadedRun, PublishedResult, ReferenceRunInfo } from '../../../src/contract/runs';
import { windowMean } from '../lib/chartData';
import { percent } from '../lib/format';

type TileProps = {
  label: string;
  value: string;
  detail?: string;
  tone?: 'good' | 'bad' | 'warn';
  testId?: string;
  /** A sentence, not a figure: smaller, and it wraps. */
  words?: boolean;
};

function Tile({ label, value, detail, tone, testId, words = false }: TileProps) {
  return (
    <div className={`tile${tone === undefined ? '' : ` tile-${tone}`}${words ? ' tile-words' : ''}`} data-testid={testId}>
      <div className="tile-label">{label}</div>
      <div className="tile-value">{value}</div>
      {detail !== undefined && <div className="tile-detail">{detail}</div>}
    </div>
  );
}

/** A column's mean over the first 10 sessions → over the last 10, each written by `format`. */
function firstToLast(
  run: LoadedRun,
  key: 'bold' | 'list' | 'style_clean' | 'no_gold_answer' | 'first_reply_chars',
  format: (mean: number | null) => string = percent,
): string {
  return `${format(windowMean(run.sessions, key, 10, 'start'))} → ${format(windowMean(run.sessions, key, 10, 'end'))}`;
}

const chars = (mean: number | null): string => (mean === null ? '—' : Math.round(mean).toString());

/**
 * What the first replies did, in the run's own terms: under a stated
 * preference (no style markers are judged, so bold and lists say nothing) the
 * preference itself, how often the floor was missed and how long the first
 * replies were; otherwise the markdown the homework recipe's user complains of.
 */
function ReplyTiles({ run }: { run: LoadedRun }) {
  const preference = run.provenance?.preference;
  if (preference !== undefined)
    return (
      <>
        <Tile testId="tile-preference" label="Stated preference" value={`“${preference}”`} words detail="the user's words; Accept is it met, with the floor" />
        <Tile testId="tile-floor" label="Floor missed" value={firstToLast(run, 'no_gold_answer')} detail="first 10 → last 10 sessions" />
        <Tile
          testId="tile-reply-chars"
          label="First reply (chars)"
          value={firstToLast(run, 'first_reply_chars', chars)}
          detail="mean, first 10 → last 10 sessions"
        />
      </>
    );
  return (
    <>
      <Tile label="Bold" value={firstToLast(run, 'bold')} detail="first 10 → last 10 sessions" />
      <Tile label="List" value={firstToLast(run, 'list')} detail="first 10 → last 10 sessions" />
      <Tile label="Style-clean" value={firstToLast(run, 'style_clean')} detail="first 10 → last 10 sessions" />
    </>
  );
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
      <ReplyTiles run={run} />
    </div>
  );
}
