import { useMemo } from 'react';
import { Bar, BarChart, Cell, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { TooltipContentProps } from 'recharts';
import type { CurveRow } from '../../../src/contract/runs';
import { rejectionReasons, sessionsInRange, zoomRows } from '../lib/chartData';
import type { SessionRange, Zoom } from '../lib/chartData';
import { PALETTE } from '../lib/palette';
import { CHART_MARGIN, sessionTicks, TICK_STYLE, Y_AXIS_WIDTH } from './chartLayout';

type StripRow = CurveRow & { cell: 1 };
/** A session of the span that has not run yet: a place on the x axis, no bar. */
type PlaceholderRow = { session: number; cell: null };
type PlotRow = StripRow | PlaceholderRow;

const isPlaceholder = (row: PlotRow): row is PlaceholderRow => row.cell === null;

function StripTooltip({ active, payload }: TooltipContentProps) {
  const plotted = payload?.[0]?.payload as PlotRow | undefined;
  if (!active || plotted === undefined || isPlaceholder(plotted)) return null;
  const row = plotted;
  const reasons = rejectionReasons(row);
  return (
    <div className="chart-tooltip">
      <div className="chart-tooltip-title">
        Session {row.session} · {row.accept === 1 ? 'accepted' : 'rejected'}
      </div>
      {reasons.length > 0 && <div>{reasons.join(', ')}</div>}
      <div className="chart-tooltip-foot">
        first reply {row.first_reply_chars} chars · {row.turns} turns
      </div>
    </div>
  );
}

/** One cell per session: the verdict on its first reply (green accepted, dark red rejected). */
export function AcceptStrip({
  sessions,
  range,
  publishedSessions,
  markers,
  span,
  zoom = null,
}: {
  sessions: readonly CurveRow[];
  range: SessionRange;
  publishedSessions: number;
  markers: { published: number | null; adapted: number | null };
  /** Lay the x axis over this many sessions even before they exist, as the curve above does. */
  span?: number;
  /** The session range the curve above is zoomed into: the strip shows the same sessions. */
  zoom?: Zoom | null;
}) {
  const rows = useMemo<StripRow[]>(
    () => zoomRows(sessionsInRange(sessions, range, publishedSessions), zoom).map((row) => ({ ...row, cell: 1 })),
    [sessions, range, publishedSessions, zoom],
  );
  const plotted = useMemo<PlotRow[]>(() => {
    const pad: PlaceholderRow[] = [];
    // A zoomed strip shows only the sessions zoomed into; otherwise it spans the planned sessions.
    for (let session = (rows.at(-1)?.session ?? -1) + 1; zoom === null && span !== undefined && session < span; session++) pad.push({ session, cell: null });
    return [...rows, ...pad];
  }, [rows, span, zoom]);
  const shown = plotted.map((row) => row.session);
  return (
    <div className="chart-frame" data-testid="accept-strip" data-points={rows.length} data-accepted={rows.filter((r) => r.accept === 1).length}>
      <ResponsiveContainer width="100%" height={74}>
        <BarChart data={plotted} margin={CHART_MARGIN} barCategoryGap={1}>
          <XAxis dataKey="session" ticks={sessionTicks(shown)} tick={TICK_STYLE} stroke={PALETTE.grid} tickLine={false} />
          <YAxis width={Y_AXIS_WIDTH} domain={[0, 1]} ticks={[]} stroke="transparent" tick={false} />
          <Tooltip content={StripTooltip} cursor={{ fill: 'rgba(255,255,255,0.06)' }} isAnimationActive={false} />
          <Bar dataKey="cell" isAnimationActive={false}>
            {rows.map((row) => (
              <Cell
                key={row.session}
                data-accept={row.accept}
                fill={row.accept === 1 ? PALETTE.accept : PALETTE.rejected}
                stroke={row.accept === 1 ? PALETTE.accept : PALETTE.rejectedEdge}
                strokeOpacity={row.accept === 1 ? 1 : 0.35}
              />
            ))}
          </Bar>
          {markers.published !== null && shown.includes(markers.published) && (
            <ReferenceLine x={markers.published} stroke={PALETTE.published} strokeDasharray="5 4" strokeWidth={1.5} />
          )}
          {markers.adapted !== null && shown.includes(markers.adapted) && <ReferenceLine x={markers.adapted} stroke={PALETTE.adapted} strokeWidth={2} />}
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
