import { useMemo, useRef, useState } from 'react';
import { CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { TooltipContentProps } from 'recharts';
import type { CurveRow, PublishedResult } from '../../../electron/contract/runs';
import { buildChartRows, RATE_SERIES, smoothedKey, zoomRows } from '../lib/chartData';
import type { ChartRow, RateKey, SessionRange, Zoom } from '../lib/chartData';
import { chartPng, fileStem, saveFile } from '../lib/exportChart';
import { chartRowsCsv } from '../lib/exportSeries';
import { exactValue, percent } from '../lib/format';
import { PALETTE } from '../lib/palette';
import { smoothingLabel, type Smoothing } from '../lib/smoothing';
import { CHART_MARGIN, sessionTicks, TICK_STYLE, Y_AXIS_WIDTH } from './chartLayout';
import { ChartToolbar, useDragZoom } from './chartZoom';
import { markerLabel } from './MarkerLabel';

/** A vertical marker for something that happened during a run (a promotion, a rollback), at the first session it affects. */
export interface CurveEventMarker {
  session: number;
  label: string;
  kind: 'promotion' | 'rollback';
}

interface CurveChartProps {
  /** The run's name: the exported files are named and titled by it. */
  title: string;
  sessions: readonly CurveRow[];
  overlay: readonly CurveRow[] | null;
  overlayTitle: string | null;
  range: SessionRange;
  visible: Record<RateKey, boolean>;
  published: PublishedResult;
  adaptationSession: number | null;
  smoothing: Smoothing;
  /** Draw the per-session values faintly behind the smoothed lines. */
  showRaw: boolean;
  zoom: Zoom | null;
  onZoom: (zoom: Zoom | null) => void;
  /** Draw the x axis over this many sessions even before they exist (a live run's curve grows into it). */
  span?: number;
  /** Promotions and rollbacks of a live run. */
  events?: readonly CurveEventMarker[];
}

/** A session of the span that has not run yet: only its position on the x axis. */
type PlaceholderRow = { session: number; placeholder: true };
type PlotRow = ChartRow | PlaceholderRow;

const isPlaceholder = (row: PlotRow | undefined): row is PlaceholderRow => row !== undefined && 'placeholder' in row;

function CurveTooltip({ active, payload, smoothing }: TooltipContentProps & { smoothing: Smoothing }) {
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
    <div className="chart-tooltip" data-testid="curve-tooltip" data-session={row.session}>
      <div className="chart-tooltip-title">
        Session {row.session} · {row.accept === 1 ? 'accepted' : 'rejected'}
      </div>
      <table>
        <thead>
          <tr>
            <th />
            <th className="num">{smoothing.kind === 'none' ? 'value' : 'smoothed'}</th>
            <th className="num">this session</th>
          </tr>
        </thead>
        <tbody>
          {RATE_SERIES.map((series) => (
            <tr key={series.key} data-series={series.key}>
              <td>
                <span className="swatch" style={{ background: series.color }} />
                {series.label}
              </td>
              <td className="num" data-exact={exactValue(row[smoothedKey(series.key)])}>
                {exactValue(row[smoothedKey(series.key)])} <span className="muted">{percent(row[smoothedKey(series.key)], 1)}</span>
              </td>
              <td className="num">{row[series.raw]}</td>
            </tr>
          ))}
          {row.reference_accept_rate_10 !== undefined && (
            <tr>
              <td>
                <span className="swatch dashed" style={{ borderColor: PALETTE.reference }} />
                Reference accept
              </td>
              <td className="num">{exactValue(row.reference_accept_rate_10)}</td>
              <td className="num">{row.reference_accept ?? ''}</td>
            </tr>
          )}
        </tbody>
      </table>
      <div className="chart-tooltip-foot">
        accepted so far: {row.accept_cum} · smoothing: {smoothingLabel(smoothing)}
      </div>
    </div>
  );
}

/**
 * The learning curve: the rate series smoothed as the person chose, their
 * per-session values faint behind them, the reference overlay dashed, a
 * marker at the published adaptation session and one where this run adapts.
 * Drag across it to zoom into a session range; export it as PNG or its
 * series as CSV. Streamed data: animation and dots off, stable data keys.
 */
export function CurveChart(props: CurveChartProps) {
  const { title, sessions, overlay, range, visible, published, adaptationSession, span, events, smoothing, showRaw, zoom, onZoom } = props;
  const frame = useRef<HTMLDivElement>(null);
  const dragZoom = useDragZoom(onZoom);
  const [exportProblem, setExportProblem] = useState<string | null>(null);
  const rows = useMemo(
    () => buildChartRows(sessions, overlay, range, published.curveSessions, smoothing),
    [sessions, overlay, range, published.curveSessions, smoothing],
  );
  const plotted = useMemo<PlotRow[]>(() => {
    const last = rows.at(-1)?.session ?? -1;
    const pad: PlaceholderRow[] = [];
    for (let session = last + 1; zoom === null && span !== undefined && session < span; session++) pad.push({ session, placeholder: true });
    return zoomRows<PlotRow>([...rows, ...pad], zoom);
  }, [rows, span, zoom]);
  const inView = useMemo(() => plotted.filter((row): row is ChartRow => !isPlaceholder(row)), [plotted]);
  const shown = plotted.map((row) => row.session);
  const markers = (events ?? []).filter((event) => shown.includes(event.session));
  const ticks = sessionTicks(shown);
  const publishedInView = shown.includes(published.adaptationSession);
  const adaptedInView = adaptationSession !== null && shown.includes(adaptationSession);
  const drawn = [...RATE_SERIES].reverse().filter((series) => visible[series.key]);

  const exportPng = () => {
    if (frame.current === null) return;
    setExportProblem(null);
    const legend = [
      ...RATE_SERIES.filter((series) => visible[series.key]).map((series) => ({ label: series.label, color: series.color })),
      ...(overlay !== null ? [{ label: props.overlayTitle ?? 'Reference accept', color: PALETTE.reference, dashed: true }] : []),
    ];
    chartPng(frame.current, `${title} · smoothing: ${smoothingLabel(smoothing)}`, legend).then(
      (png) => saveFile(`${fileStem(title)}-curve.png`, png),
      (error: unknown) => setExportProblem((error as Error).message),
    );
  };

  return (
    <div className="curve-chart-block">
      <ChartToolbar
        zoom={zoom}
        onReset={() => onZoom(null)}
        onPng={exportPng}
        onCsv={() => saveFile(`${fileStem(title)}-curve.csv`, chartRowsCsv(inView, smoothing))}
        disabled={inView.length === 0}
        problem={exportProblem}
      />
      <div
        ref={frame}
        className="chart-frame zoomable"
        data-testid="curve-chart"
        data-points={inView.length}
        data-span={plotted.length}
        data-first-session={shown[0]}
        data-last-session={inView.at(-1)?.session}
        data-events={markers.length}
        data-published-marker={publishedInView ? published.adaptationSession : 'out-of-range'}
        data-adaptation-marker={adaptationSession === null ? 'none' : adaptedInView ? adaptationSession : 'out-of-range'}
        data-overlay={overlay === null ? 'off' : 'on'}
        data-smoothing={smoothing.kind}
        data-zoom={zoom === null ? 'none' : `${zoom.from}-${zoom.to}`}
      >
        <ResponsiveContainer width="100%" height={340}>
          <LineChart
            data={plotted}
            margin={{ ...CHART_MARGIN, top: markers.length > 0 ? 104 : 56 }}
            {...dragZoom.handlers}
          >
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
            <Tooltip
              content={(tooltip: TooltipContentProps) => <CurveTooltip {...tooltip} smoothing={smoothing} />}
              cursor={{ stroke: PALETTE.axis, strokeWidth: 1 }}
              isAnimationActive={false}
            />
            {/* The per-session values, faint, behind everything: what the smoothing averages. */}
            {showRaw &&
              drawn.map((series) => (
                <Line
                  key={`raw-${series.key}`}
                  className="raw-series"
                  type="linear"
                  dataKey={series.raw}
                  name={`${series.label} (per session)`}
                  stroke={series.color}
                  strokeOpacity={0.22}
                  strokeWidth={1}
                  dot={false}
                  activeDot={false}
                  isAnimationActive={false}
                  legendType="none"
                />
              ))}
            {overlay !== null && (
              <Line
                className="reference-series"
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
            {drawn.map((series) => (
              <Line
                key={series.key}
                className="smoothed-series"
                // Straight segments between sessions: a spline would invent values between them.
                type="linear"
                dataKey={smoothedKey(series.key)}
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
            {dragZoom.band}
          </LineChart>
        </ResponsiveContainer>
      </div>
    </div>
  );
}
