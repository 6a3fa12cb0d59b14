import { useMemo } from 'react';
import { CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { TooltipContentProps } from 'recharts';
import type { CurveRow, PublishedResult } from '../../../electron/contract/runs';
import { buildChartRows, RATE_SERIES } from '../lib/chartData';
import type { ChartRow, RateKey, SessionRange } from '../lib/chartData';
import { percent } from '../lib/format';
import { PALETTE } from '../lib/palette';
import { CHART_MARGIN, sessionTicks, TICK_STYLE, Y_AXIS_WIDTH } from './chartLayout';
import { markerLabel } from './MarkerLabel';

/** A vertical marker for something that happened during a run (a promotion, a rollback), at the first session it affects. */
export interface CurveEventMarker {
  session: number;
  label: string;
  kind: 'promotion' | 'rollback';
}

interface CurveChartProps {
  sessions: readonly CurveRow[];
  overlay: readonly CurveRow[] | null;
  overlayTitle: string | null;
  range: SessionRange;
  visible: Record<RateKey, boolean>;
  published: PublishedResult;
  adaptationSession: number | null;
  /** Draw the x axis over this many sessions even before they exist (a live run's curve grows into it). */
  span?: number;
  /** Promotions and rollbacks of a live run. */
  events?: readonly CurveEventMarker[];
}

/** A session of the span that has not run yet: only its position on the x axis. */
type PlaceholderRow = { session: number; placeholder: true };
type PlotRow = ChartRow | PlaceholderRow;

const isPlaceholder = (row: PlotRow | undefined): row is PlaceholderRow => row !== undefined && 'placeholder' in row;

function CurveTooltip({ active, payload }: TooltipContentProps) {
  const plotted = payload?.[0]?.payload as PlotRow | undefined;
  if (!active || plotted === undefined) return null;
  if (isPlaceholder(plotted)) {
    return (
      <div className="chart-tooltip">
        <div className="chart-tooltip-title">Session {plotted.session} · not run yet</div>
      </div>
    );
  }
  const row = plotted;
  return (
    <div className="chart-tooltip">
      <div className="chart-tooltip-title">
        Session {row.session} · {row.accept === 1 ? 'accepted' : 'rejected'}
      </div>
      <table>
        <tbody>
          {RATE_SERIES.map((series) => (
            <tr key={series.key}>
              <td>
                <span className="swatch" style={{ background: series.color }} />
                {series.label}
              </td>
              <td className="num">{percent(row[series.key], 1)}</td>
            </tr>
          ))}
          {row.reference_accept_rate_10 !== undefined && (
            <tr>
              <td>
                <span className="swatch dashed" style={{ borderColor: PALETTE.reference }} />
                Reference accept
              </td>
              <td className="num">{percent(row.reference_accept_rate_10, 1)}</td>
            </tr>
          )}
        </tbody>
      </table>
      <div className="chart-tooltip-foot">accepted so far: {row.accept_cum}</div>
    </div>
  );
}

/**
 * The learning curve: rolling 10-session rates per session, the reference
 * overlay dashed, a marker at the published adaptation session and one where
 * this run adapts. Static data: animation and dots off.
 */
export function CurveChart(props: CurveChartProps) {
  const { sessions, overlay, range, visible, published, adaptationSession, span, events } = props;
  const rows = useMemo(
    () => buildChartRows(sessions, overlay, range, published.curveSessions),
    [sessions, overlay, range, published.curveSessions],
  );
  const plotted = useMemo<PlotRow[]>(() => {
    const last = rows.at(-1)?.session ?? -1;
    const pad: PlaceholderRow[] = [];
    for (let session = last + 1; span !== undefined && session < span; session++) pad.push({ session, placeholder: true });
    return [...rows, ...pad];
  }, [rows, span]);
  const shown = plotted.map((row) => row.session);
  const markers = (events ?? []).filter((event) => shown.includes(event.session));
  const ticks = sessionTicks(shown);
  const publishedInView = shown.includes(published.adaptationSession);
  const adaptedInView = adaptationSession !== null && shown.includes(adaptationSession);
  return (
    <div
      className="chart-frame"
      data-testid="curve-chart"
      data-points={rows.length}
      data-span={plotted.length}
      data-first-session={shown[0]}
      data-last-session={rows.at(-1)?.session}
      data-events={markers.length}
      data-published-marker={publishedInView ? published.adaptationSession : 'out-of-range'}
      data-adaptation-marker={adaptationSession === null ? 'none' : adaptedInView ? adaptationSession : 'out-of-range'}
      data-overlay={overlay === null ? 'off' : 'on'}
    >
      <ResponsiveContainer width="100%" height={340}>
        <LineChart data={plotted} margin={{ ...CHART_MARGIN, top: markers.length > 0 ? 104 : 56 }}>
          <CartesianGrid stroke={PALETTE.grid} vertical={false} />
          {/* A band scale, as the accept strip's bars use, so sessions line up between the two charts. */}
          <XAxis dataKey="session" scale="band" ticks={ticks} tick={TICK_STYLE} stroke={PALETTE.grid} tickLine={false} />
          <YAxis
            width={Y_AXIS_WIDTH}
            domain={[0, 1]}
            // Room above 100 % and below 0 %, so a series sitting at either is not hidden by the frame.
            padding={{ top: 8, bottom: 8 }}
            ticks={[0, 0.25, 0.5, 0.75, 1]}
            tickFormatter={(value: number) => percent(value)}
            tick={TICK_STYLE}
            stroke={PALETTE.grid}
            tickLine={false}
          />
          <Tooltip content={CurveTooltip} cursor={{ stroke: '#4b5563', strokeWidth: 1 }} isAnimationActive={false} />
          {overlay !== null && (
            <Line
              type="linear"
              dataKey="reference_accept_rate_10"
              name="Reference accept"
              stroke={PALETTE.reference}
              strokeWidth={1.75}
              strokeDasharray="6 4"
              dot={false}
              activeDot={false}
              isAnimationActive={false}
              connectNulls
            />
          )}
          {/* The accept rate is drawn last, on top: it is the curve the run is judged by. */}
          {[...RATE_SERIES].reverse().filter((series) => visible[series.key]).map((series) => (
            <Line
              key={series.key}
              // Straight segments between sessions: smoothing would invent values between them.
              type="linear"
              dataKey={series.key}
              name={series.label}
              stroke={series.color}
              strokeWidth={series.key === 'accept_rate_10' ? 3 : 1.75}
              dot={false}
              activeDot={{ r: 3.5 }}
              isAnimationActive={false}
            />
          ))}
          {publishedInView && (
            <ReferenceLine
              x={published.adaptationSession}
              stroke={PALETTE.published}
              strokeDasharray="5 4"
              strokeWidth={1.5}
              label={markerLabel(published.label, PALETTE.published, -2)}
            />
          )}
          {markers.map((event, index) => (
            <ReferenceLine
              key={`${event.kind}-${event.session}-${index}`}
              x={event.session}
              stroke={event.kind === 'promotion' ? PALETTE.promotion : PALETTE.rollback}
              strokeWidth={1.5}
              strokeDasharray={event.kind === 'rollback' ? '2 3' : undefined}
              label={markerLabel(event.label, event.kind === 'promotion' ? PALETTE.promotion : PALETTE.rollback, -3 - (index % 2))}
            />
          ))}
          {adaptedInView && (
            <ReferenceLine
              x={adaptationSession}
              stroke={PALETTE.adapted}
              strokeWidth={2}
              label={markerLabel(`This run: adapted @${adaptationSession}`, PALETTE.adapted, -1)}
            />
          )}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
