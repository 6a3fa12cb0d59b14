import { useMemo, useRef, useState, type CSSProperties } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { TooltipContentProps } from 'recharts';
import type { PublishedResult } from '../../../src/contract/runs';
import { FULL_Y_RANGE, RATE_SERIES, zoomRows, type RateKey, type SessionRange, type Zoom } from '../lib/chartData';
import { fileStem, saveFile } from '../lib/exportChart';
import { compareCsv } from '../lib/exportSeries';
import { exactValue, percent } from '../lib/format';
import { PALETTE } from '../lib/palette';
import { smoothingLabel, smoothingShort, smoothSeries, type Smoothing } from '../lib/smoothing';
import type { ComparedRun } from '../stores/compareStore';
import { useViewStore } from '../stores/viewStore';
import { CHART_MARGIN, percentTick, sessionTicks, TICK_STYLE, Y_AXIS_WIDTH, yRangeTag, yTicksOf } from './chartLayout';
import { ChartToolbar, useDragZoom } from './chartZoom';
import { labelsMargin, MarkerLayer, type ChartMarker } from './MarkerLabel';
import { RangeControl } from './RangeControl';
import { useChartExport } from './useChartExport';

/** The colour of the i-th compared run (theme variables, storyStyles.css). */
export const compareColor = (index: number): string => `var(--compare-${(index % 6) + 1})`;

/** The i-th run's swatch, solid for the first and dashed for the others, as their lines are drawn. */
export const compareSwatchStyle = (index: number): CSSProperties =>
  index === 0 ? { background: compareColor(index) } : { background: `repeating-linear-gradient(90deg, ${compareColor(index)} 0 4px, transparent 4px 6px)` };

/** One session across the runs: each run's smoothed value (`s<i>`) and per-session value (`r<i>`), absent where a run has no such session. */
type CompareRow = { session: number } & Record<string, number | undefined>;

function CompareTooltip({ active, payload, runs, smoothing }: TooltipContentProps & { runs: readonly ComparedRun[]; smoothing: Smoothing }) {
  const row = payload?.[0]?.payload as CompareRow | undefined;
  if (!active || row === undefined) return null;
  return (
    <div className="chart-tooltip" data-testid="compare-tooltip" data-session={row.session}>
      <div className="chart-tooltip-title">Session {row.session}</div>
      <table>
        <thead>
          <tr>
            <th />
            <th className="num">{smoothingShort(smoothing)}</th>
            <th className="num">this session</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run, i) => {
            const smoothed = row[`s${i}`];
            return (
              <tr key={run.key}>
                <td>
                  <span className="swatch" style={compareSwatchStyle(i)} />
                  {run.label}
                </td>
                <td className="num">
                  {smoothed === undefined ? (
                    '—'
                  ) : (
                    <>
                      {exactValue(smoothed)} <span className="muted">{percent(smoothed, 1)}</span>
                    </>
                  )}
                </td>
                <td className="num">{row[`r${i}`] ?? '—'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Several runs' one rate series overlaid, each in its own colour and named
 * by its run: smoothed as the person chose, per-session values faint, the
 * published adaptation marked; zoom, axis ranges, PNG, SVG and CSV as on a
 * single run's chart. `compact` is one of the small charts side by side, one
 * per metric: titled by its metric, the axis ranges set above them all.
 */
export function CompareChart({
  runs,
  series,
  smoothing,
  showRaw,
  range,
  published,
  zoom,
  onZoom,
  compact = false,
}: {
  runs: readonly ComparedRun[];
  series: RateKey;
  smoothing: Smoothing;
  showRaw: boolean;
  range: SessionRange;
  published: PublishedResult;
  zoom: Zoom | null;
  onZoom: (zoom: Zoom | null) => void;
  compact?: boolean;
}) {
  const frame = useRef<HTMLDivElement>(null);
  const dragZoom = useDragZoom(onZoom);
  const { yRange, setYRange } = useViewStore(useShallow((state) => ({ yRange: state.yRange, setYRange: state.setYRange })));
  const y = yRange ?? FULL_Y_RANGE;
  const [labelRows, setLabelRows] = useState(1);
  const rate = RATE_SERIES.find((s) => s.key === series) ?? RATE_SERIES[0];
  const rows = useMemo<CompareRow[]>(() => {
    const bySession = new Map<number, CompareRow>();
    runs.forEach((run, i) => {
      // Smoothed over each run's whole length, then joined by session number.
      const smoothed = smoothSeries(run.sessions, rate, smoothing);
      run.sessions.forEach((row, j) => {
        const point = bySession.get(row.session) ?? { session: row.session };
        point[`s${i}`] = smoothed[j];
        point[`r${i}`] = row[rate.raw];
        bySession.set(row.session, point);
      });
    });
    const all = [...bySession.values()].sort((a, b) => a.session - b.session);
    return range === 'all' ? all : all.filter((row) => row.session < published.curveSessions);
  }, [runs, rate, smoothing, range, published.curveSessions]);
  const shown = useMemo(() => zoomRows(rows, zoom), [rows, zoom]);
  const sessions = shown.map((row) => row.session);
  const publishedInView = sessions.includes(published.adaptationSession);
  const markers: ChartMarker[] = publishedInView
    ? [{ key: 'published', at: published.adaptationSession, label: published.label, color: PALETTE.published, dash: '5 4', strokeWidth: 1.5 }]
    : [];
  const exporter = useChartExport(frame, () => ({
    title: `${rate.label} rate (${smoothingShort(smoothing)}), ${runs.length} run${runs.length === 1 ? '' : 's'} compared · smoothing: ${smoothingLabel(smoothing)}`,
    legend: runs.map((run, i) => ({ label: run.label, color: compareColor(i), dashed: i > 0 })),
    stem: `compare-${fileStem(rate.label)}`,
  }));
  const first = rows[0]?.session;
  const last = rows.at(-1)?.session;

  return (
    <div className="curve-chart-block">
      <ChartToolbar
        zoom={zoom}
        onReset={() => onZoom(null)}
        onPng={exporter.png}
        onSvg={exporter.svg}
        onCsv={() =>
          saveFile(
            `compare-${fileStem(rate.label)}.csv`,
            compareCsv(
              runs.map((run) => ({ label: run.label, rows: run.sessions })),
              rate,
              smoothing,
              sessions,
            ),
          )
        }
        disabled={shown.length === 0}
        problem={exporter.problem}
        title={compact ? `${rate.label} rate` : undefined}
        range={
          !compact && first !== undefined && last !== undefined && first < last ? (
            <RangeControl first={first} last={last} zoom={zoom} onZoom={onZoom} yRange={yRange} onYRange={setYRange} />
          ) : compact ? null : undefined
        }
      />
      <div
        ref={frame}
        className="chart-frame zoomable"
        data-testid="compare-chart"
        data-runs={runs.length}
        data-series={series}
        data-points={shown.length}
        data-first-session={sessions[0]}
        data-last-session={sessions.at(-1)}
        data-zoom={zoom === null ? 'none' : `${zoom.from}-${zoom.to}`}
        data-y-range={yRangeTag(y)}
      >
        <ResponsiveContainer width="100%" height={compact ? 250 : 360}>
          <LineChart data={shown} margin={{ ...CHART_MARGIN, top: labelsMargin(markers.length === 0 ? 0 : labelRows) }} {...dragZoom.handlers}>
            <CartesianGrid stroke={PALETTE.grid} vertical={false} />
            <XAxis dataKey="session" scale="band" ticks={sessionTicks(sessions)} tick={TICK_STYLE} stroke={PALETTE.grid} tickLine={false} />
            <YAxis
              width={Y_AXIS_WIDTH}
              domain={[y.min, y.max]}
              allowDataOverflow
              padding={{ top: 8, bottom: 8 }}
              ticks={yTicksOf(y)}
              tickFormatter={percentTick}
              tick={TICK_STYLE}
              stroke={PALETTE.grid}
              tickLine={false}
            />
            <Tooltip
              content={(tooltip: TooltipContentProps) => <CompareTooltip {...tooltip} runs={runs} smoothing={smoothing} />}
              cursor={{ stroke: PALETTE.axis, strokeWidth: 1 }}
              isAnimationActive={false}
            />
            {showRaw &&
              runs.map((run, i) => (
                <Line
                  key={`raw-${run.key}`}
                  className="raw-series"
                  type="linear"
                  dataKey={`r${i}`}
                  name={`${run.label} (per session)`}
                  stroke={compareColor(i)}
                  strokeOpacity={0.22}
                  strokeWidth={1}
                  dot={false}
                  activeDot={false}
                  isAnimationActive={false}
                  zIndex={398}
                />
              ))}
            {/* Later runs thinner and dashed over earlier ones: runs at the same value stay told apart. */}
            {runs.map((run, i) => (
              <Line
                key={run.key}
                className="compared-series"
                type="linear"
                dataKey={`s${i}`}
                name={run.label}
                stroke={compareColor(i)}
                strokeWidth={i === 0 ? 3 : 2}
                strokeDasharray={i === 0 ? undefined : COMPARE_DASHES[(i - 1) % COMPARE_DASHES.length]}
                dot={false}
                activeDot={{ r: 3.5 }}
                isAnimationActive={false}
                zIndex={400 + i}
              />
            ))}
            {publishedInView && <ReferenceLine x={published.adaptationSession} stroke={PALETTE.published} strokeDasharray="5 4" strokeWidth={1.5} />}
            <MarkerLayer markers={markers} onRows={setLabelRows} />
            {dragZoom.band}
          </LineChart>
        </ResponsiveContainer>
      </div>
    </div>
  );
}

/** The dash of each run after the first (solid), so overlapping runs stay visible. */
const COMPARE_DASHES = ['8 3', '3 3', '10 3 2 3', '6 2', '2 2'] as const;
