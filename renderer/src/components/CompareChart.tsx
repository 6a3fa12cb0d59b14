import { useMemo, useRef, useState } from 'react';
import { CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { TooltipContentProps } from 'recharts';
import type { PublishedResult } from '../../../electron/contract/runs';
import { RATE_SERIES, zoomRows, type RateKey, type SessionRange, type Zoom } from '../lib/chartData';
import { chartPng, fileStem, saveFile } from '../lib/exportChart';
import { compareCsv } from '../lib/exportSeries';
import { exactValue, percent } from '../lib/format';
import { PALETTE } from '../lib/palette';
import { smoothingLabel, smoothSeries, type Smoothing } from '../lib/smoothing';
import type { ComparedRun } from '../stores/compareStore';
import { CHART_MARGIN, sessionTicks, TICK_STYLE, Y_AXIS_WIDTH } from './chartLayout';
import { ChartToolbar, useDragZoom } from './chartZoom';
import { markerLabel } from './MarkerLabel';

/** The colour of the i-th compared run (theme variables, storyStyles.css). */
export const compareColor = (index: number): string => `var(--compare-${(index % 6) + 1})`;

/** One session across the runs: each run's smoothed value (`s<i>`) and per-session value (`r<i>`), absent where a run has no such session. */
type CompareRow = { session: number } & Record<string, number | undefined>;

function CompareTooltip({ active, payload, runs }: TooltipContentProps & { runs: readonly ComparedRun[] }) {
  const row = payload?.[0]?.payload as CompareRow | undefined;
  if (!active || row === undefined) return null;
  return (
    <div className="chart-tooltip" data-testid="compare-tooltip" data-session={row.session}>
      <div className="chart-tooltip-title">Session {row.session}</div>
      <table>
        <thead>
          <tr>
            <th />
            <th className="num">smoothed</th>
            <th className="num">this session</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run, i) => {
            const smoothed = row[`s${i}`];
            return (
              <tr key={run.key}>
                <td>
                  <span className="swatch" style={{ background: compareColor(i) }} />
                  {run.label}
                </td>
                <td className="num">{smoothed === undefined ? '—' : <>{exactValue(smoothed)} <span className="muted">{percent(smoothed, 1)}</span></>}</td>
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
 * published adaptation marked; zoom, PNG and CSV as on a single run's chart.
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
}: {
  runs: readonly ComparedRun[];
  series: RateKey;
  smoothing: Smoothing;
  showRaw: boolean;
  range: SessionRange;
  published: PublishedResult;
  zoom: Zoom | null;
  onZoom: (zoom: Zoom | null) => void;
}) {
  const frame = useRef<HTMLDivElement>(null);
  const [exportProblem, setExportProblem] = useState<string | null>(null);
  const dragZoom = useDragZoom(onZoom);
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
  const title = `${rate.label} rate: ${runs.map((run) => run.label).join(' vs ')}`;

  const exportPng = () => {
    if (frame.current === null) return;
    setExportProblem(null);
    chartPng(frame.current, `${title} · smoothing: ${smoothingLabel(smoothing)}`, runs.map((run, i) => ({ label: run.label, color: compareColor(i) }))).then(
      (png) => saveFile(`compare-${fileStem(rate.label)}.png`, png),
      (error: unknown) => setExportProblem((error as Error).message),
    );
  };

  return (
    <div className="curve-chart-block">
      <ChartToolbar
        zoom={zoom}
        onReset={() => onZoom(null)}
        onPng={exportPng}
        onCsv={() => saveFile(`compare-${fileStem(rate.label)}.csv`, compareCsv(runs.map((run) => ({ label: run.label, rows: run.sessions })), rate, smoothing, sessions))}
        disabled={shown.length === 0}
        problem={exportProblem}
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
      >
        <ResponsiveContainer width="100%" height={360}>
          <LineChart data={shown} margin={{ ...CHART_MARGIN, top: 40 }} {...dragZoom.handlers}>
            <CartesianGrid stroke={PALETTE.grid} vertical={false} />
            <XAxis dataKey="session" scale="band" ticks={sessionTicks(sessions)} tick={TICK_STYLE} stroke={PALETTE.grid} tickLine={false} />
            <YAxis
              width={Y_AXIS_WIDTH}
              domain={[0, 1]}
              padding={{ top: 8, bottom: 8 }}
              ticks={[0, 0.25, 0.5, 0.75, 1]}
              tickFormatter={(value: number) => percent(value)}
              tick={TICK_STYLE}
              stroke={PALETTE.grid}
              tickLine={false}
            />
            <Tooltip content={(tooltip: TooltipContentProps) => <CompareTooltip {...tooltip} runs={runs} />} cursor={{ stroke: PALETTE.axis, strokeWidth: 1 }} isAnimationActive={false} />
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
                />
              ))}
            {runs.map((run, i) => (
              <Line
                key={run.key}
                className="compared-series"
                type="linear"
                dataKey={`s${i}`}
                name={run.label}
                stroke={compareColor(i)}
                strokeWidth={i === 0 ? 3 : 2}
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
                label={markerLabel(published.label, PALETTE.published, -1)}
              />
            )}
            {dragZoom.band}
          </LineChart>
        </ResponsiveContainer>
      </div>
    </div>
  );
}
