import { useMemo, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { TooltipContentProps } from 'recharts';
import type { CurveRow, PublishedResult } from '../../../src/contract/runs';
import { buildChartRows, FULL_Y_RANGE, RATE_SERIES, referenceLabel, smoothedKey, zoomRows } from '../lib/chartData';
import type { ChartRow, RateKey, SessionRange, Zoom } from '../lib/chartData';
import { fileStem, saveFile } from '../lib/exportChart';
import { chartRowsCsv } from '../lib/exportSeries';
import { exactValue } from '../lib/format';
import { PALETTE } from '../lib/palette';
import { smoothingLabel, smoothingShort, type Smoothing } from '../lib/smoothing';
import { useViewStore } from '../stores/viewStore';
import { CHART_MARGIN, percentTick, sessionTicks, TICK_STYLE, Y_AXIS_WIDTH, yRangeTag, yTicksOf } from './chartLayout';
import { ChartToolbar, useDragZoom } from './chartZoom';
import { labelsMargin, MarkerLayer, type ChartMarker } from './MarkerLabel';
import { RangeControl } from './RangeControl';
import { useChartExport } from './useChartExport';

/**
 * A vertical marker for something that happened during a run (a promotion,
 * a rollback), at the first session it affects; one decided after the last
 * session is drawn at the chart's right edge, labelled so.
 */
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

function CurveTooltip({ active, payload, smoothing, overlayTitle }: TooltipContentProps & { smoothing: Smoothing; overlayTitle: string | null }) {
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
            <th className="num">{smoothingShort(smoothing)}</th>
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
                {exactValue(row[smoothedKey(series.key)])} <span className="muted">{(row[smoothedKey(series.key)] * 100).toFixed(1)}%</span>
              </td>
              <td className="num">{row[series.raw]}</td>
            </tr>
          ))}
          {row.reference_accept_rate_10 !== undefined && (
            <tr data-testid="tooltip-reference">
              <td>
                <span className="swatch dashed" style={{ borderColor: PALETTE.reference }} />
                {referenceLabel(overlayTitle)}
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
  const { title, sessions, overlay, overlayTitle, range, visible, published, adaptationSession, span, events, smoothing, showRaw, zoom, onZoom } = props;
  const { yRange, setYRange } = useViewStore(useShallow((state) => ({ yRange: state.yRange, setYRange: state.setYRange })));
  const y = yRange ?? FULL_Y_RANGE;
  const frame = useRef<HTMLDivElement>(null);
  const dragZoom = useDragZoom(onZoom);
  const [labelRows, setLabelRows] = useState(1);
  const rows = useMemo(
    () => buildChartRows(sessions, overlay, range, published.curveSessions, smoothing),
    [sessions, overlay, range, published.curveSessions, smoothing],
  );
  const unzoomed = useMemo<PlotRow[]>(() => {
    const last = rows.at(-1)?.session ?? -1;
    const pad: PlaceholderRow[] = [];
    for (let session = last + 1; span !== undefined && session < span; session++) pad.push({ session, placeholder: true });
    return [...rows, ...pad];
  }, [rows, span]);
  const plotted = useMemo(() => zoomRows(unzoomed, zoom), [unzoomed, zoom]);
  const inView = useMemo(() => plotted.filter((row): row is ChartRow => !isPlaceholder(row)), [plotted]);
  const shown = plotted.map((row) => row.session);
  const lastShown = shown.at(-1);
  // The view reaches the run's end: what happened after its last session belongs at the right edge.
  const runEnd = Math.max(span ?? 0, (sessions.at(-1)?.session ?? -1) + 1);
  const reachesEnd = zoom === null && lastShown !== undefined && lastShown + 1 >= runEnd;
  const eventsInView = (events ?? []).filter((event) => shown.includes(event.session));
  const eventsAfterEnd = reachesEnd ? (events ?? []).filter((event) => event.session > lastShown) : [];
  const eventsOutside = (events ?? []).length - eventsInView.length - eventsAfterEnd.length;
  const ticks = sessionTicks(shown);
  const publishedInView = shown.includes(published.adaptationSession);
  const adaptedInView = adaptationSession !== null && shown.includes(adaptationSession);
  const drawn = [...RATE_SERIES].reverse().filter((series) => visible[series.key]);
  const eventColor = (event: CurveEventMarker) => (event.kind === 'promotion' ? PALETTE.promotion : PALETTE.rollback);
  const eventDash = (event: CurveEventMarker) => (event.kind === 'rollback' ? '2 3' : undefined);
  // Every label is placed together, in this order of precedence, so none covers another or leaves the chart.

  const markers: ChartMarker[] = [
    ...(publishedInView ? [{ key: 'published', at: published.adaptationSession, label: published.label, color: PALETTE.published, strokeWidth: 1.5 }] : []),
    ...(adaptedInView
      ? [{ key: 'adapted', at: adaptationSession, label: `This run: adapted @${adaptationSession}`, color: PALETTE.adapted, strokeWidth: 2 }]
      : []),
    ...eventsInView.map((event, i) => ({
      key: `event-${i}`,
      at: event.session,
      label: event.label,
      color: eventColor(event),
      dash: eventDash(event),
      strokeWidth: 1.5,
    })),
    ...eventsAfterEnd.map((event, i) => ({
      key: `after-${i}`,
      at: 'end' as const,
      label: `${event.label} · after session ${lastShown}`,
      color: eventColor(event),
      dash: eventDash(event),
      strokeWidth: 1.5,
    })),
  ];

  const exporter = useChartExport(frame, () => ({
    title: `${title} · smoothing: ${smoothingLabel(smoothing)}`,
    legend: [
      ...RATE_SERIES.filter((series) => visible[series.key]).map((series) => ({
        label: `${series.label} (${smoothingShort(smoothing)})`,
        color: series.color,
      })),
      ...(overlay !== null ? [{ label: referenceLabel(overlayTitle), color: PALETTE.reference, dashed: true }] : []),
    ],
    stem: `${fileStem(title)}-curve`,
  }));
  const first = unzoomed[0]?.session;
  const last = unzoomed.at(-1)?.session;

  return (
    <div className="curve-chart-block">
      <ChartToolbar
        zoom={zoom}
        onReset={() => onZoom(null)}
        onPng={exporter.png}
        onSvg={exporter.svg}
        onCsv={() => saveFile(`${fileStem(title)}-curve.csv`, chartRowsCsv(inView, smoothing))}
        disabled={inView.length === 0}
        problem={exporter.problem}
        range={
          first !== undefined && last !== undefined && first < last ? (
            <RangeControl first={first} last={last} zoom={zoom} onZoom={onZoom} yRange={yRange} onYRange={setYRange} />
          ) : undefined
        }
        note={eventsOutside > 0 ? `${eventsOutside} promotion/rollback marker${eventsOutside === 1 ? '' : 's'} outside the sessions shown` : null}
      />
      <div
        ref={frame}
        className="chart-frame zoomable"
        data-testid="curve-chart"
        data-points={inView.length}
        data-span={plotted.length}
        data-first-session={shown[0]}
        data-last-session={inView.at(-1)?.session}
        data-events={eventsInView.length + eventsAfterEnd.length}
        data-events-outside={eventsOutside}
        data-published-marker={publishedInView ? published.adaptationSession : 'out-of-range'}
        data-adaptation-marker={adaptationSession === null ? 'none' : adaptedInView ? adaptationSession : 'out-of-range'}
        data-overlay={overlay === null ? 'off' : 'on'}
        data-smoothing={smoothing.kind}
        data-zoom={zoom === null ? 'none' : `${zoom.from}-${zoom.to}`}
        data-y-range={yRangeTag(y)}
      >
        <ResponsiveContainer width="100%" height={340}>
          <LineChart data={plotted} margin={{ ...CHART_MARGIN, top: labelsMargin(markers.length === 0 ? 0 : labelRows) }} {...dragZoom.handlers}>
            <CartesianGrid stroke={PALETTE.grid} vertical={false} />
            {/* A band scale, as the accept strip's bars use, so sessions line up between the two charts. */}
            <XAxis dataKey="session" scale="band" ticks={ticks} tick={TICK_STYLE} stroke={PALETTE.grid} tickLine={false} />
            <YAxis
              width={Y_AXIS_WIDTH}
              domain={[y.min, y.max]}
              // A typed range cuts the lines at its edges rather than stretching the axis.
              allowDataOverflow
              // Room above the top and below the bottom, so a series sitting at either is not hidden by the frame.
              padding={{ top: 8, bottom: 8 }}
              ticks={yTicksOf(y)}
              tickFormatter={percentTick}
              tick={TICK_STYLE}
              stroke={PALETTE.grid}
              tickLine={false}
            />
            <Tooltip
              content={(tooltip: TooltipContentProps) => <CurveTooltip {...tooltip} smoothing={smoothing} overlayTitle={overlayTitle} />}
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
                  zIndex={LAYER.raw}
                />
              ))}
            {/* The accept rate is drawn above the other rates: it is the curve the run is judged by. */}
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
                zIndex={series.key === 'accept_rate_10' ? LAYER.accept : LAYER.rate}
              />
            ))}
            {/*
              The reference is painted over this run's lines, thinner and dashed: where both sit at the
              same value (both at 0 %, say) the run's thicker line shows around and between its dashes.
            */}
            {overlay !== null && (
              <Line
                className="reference-series"
                type="linear"
                dataKey="reference_accept_rate_10"
                name={referenceLabel(overlayTitle)}
                stroke={PALETTE.reference}
                strokeWidth={1.75}
                strokeDasharray="6 4"
                dot={false}
                activeDot={false}
                isAnimationActive={false}
                connectNulls
                zIndex={LAYER.reference}
              />
            )}
            {publishedInView && <ReferenceLine x={published.adaptationSession} stroke={PALETTE.published} strokeDasharray="5 4" strokeWidth={1.5} />}
            {eventsInView.map((event, index) => (
              <ReferenceLine
                key={`${event.kind}-${event.session}-${index}`}
                x={event.session}
                stroke={eventColor(event)}
                strokeWidth={1.5}
                strokeDasharray={eventDash(event)}
              />
            ))}
            {adaptedInView && <ReferenceLine x={adaptationSession} stroke={PALETTE.adapted} strokeWidth={2} />}
            <MarkerLayer markers={markers} onRows={setLabelRows} />
            {dragZoom.band}
          </LineChart>
        </ResponsiveContainer>
      </div>
    </div>
  );
}

/** Paint order of the lines (recharts' z-index; its lines default to 400). */
const LAYER = { raw: 398, rate: 400, accept: 401, reference: 402 } as const;
