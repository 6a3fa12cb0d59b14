import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { TooltipContentProps } from 'recharts';
import type { GateRow } from '../../../src/contract/runs';
import { gateStats } from '../lib/chartData';
import { percent } from '../lib/format';
import { PALETTE } from '../lib/palette';
import { CHART_MARGIN, TICK_STYLE, Y_AXIS_WIDTH } from './chartLayout';

/** A row as drawn: its position in the file, and a mark at 0 for a candidate rejected before any probe (nothing measured). */
type GatePoint = GateRow & { position: number; unmeasured: number | null };

const isUnmeasured = (row: GateRow): boolean => row.clean_rate === null;

function GateTooltip({ active, payload }: TooltipContentProps) {
  const row = payload?.[0]?.payload as GatePoint | undefined;
  if (!active || row === undefined) return null;
  return (
    <div className="chart-tooltip">
      <div className="chart-tooltip-title">
        Step {row.step} (row {row.position}) · <span className={row.outcome === 'select' ? 'text-good' : 'text-bad'}>{row.outcome}</span>
      </div>
      {isUnmeasured(row) && <div className="chart-tooltip-foot">rejected before any probe round: not measured</div>}
      <table>
        <tbody>
          <tr>
            <td>candidate clean_rate</td>
            <td className="num">{percent(row.clean_rate, 1)}</td>
          </tr>
          <tr>
            <td>best so far</td>
            <td className="num">{percent(row.best, 1)}</td>
          </tr>
          <tr>
            <td>gold_rate</td>
            <td className="num">{percent(row.gold_rate, 1)}</td>
          </tr>
          <tr>
            <td>answered_rate</td>
            <td className="num">{percent(row.answered_rate, 1)}</td>
          </tr>
        </tbody>
      </table>
    </div>
  );
}

/** Ticks every 5 (plus the first) of whatever the x axis counts. */
function ticksOf(values: readonly number[]): number[] {
  return values.filter((value, index) => index === 0 || value % 5 === 0);
}

/** Reef's steps increase row by row; GateLab's rows are candidates (an injected one has step 0), drawn in file order. */
const stepsIncrease = (steps: readonly GateRow[]): boolean => steps.every((row, i) => i === 0 || row.step > steps[i - 1]!.step);

/** A ✗ at the bottom for each candidate that never reached a probe (its rates are empty cells). */
function UnmeasuredMark(props: { cx?: number; cy?: number; payload?: GatePoint }) {
  const { cx, cy, payload } = props;
  if (cx === undefined || cy === undefined || payload === undefined || !isUnmeasured(payload)) return <g />;
  return (
    <path
      d={`M${cx - 4},${cy - 4} L${cx + 4},${cy + 4} M${cx - 4},${cy + 4} L${cx + 4},${cy - 4}`}
      stroke={PALETTE.reject}
      strokeWidth={2}
      data-outcome="unmeasured"
    />
  );
}

/** A dot per step, coloured by the gate's outcome (the only series where dots carry data). */
function OutcomeDot(props: { cx?: number | null; cy?: number | null; payload?: GateRow }) {
  const { cx, cy, payload } = props;
  if (cx == null || cy == null || payload === undefined || isUnmeasured(payload)) return <g />;
  const select = payload.outcome === 'select';
  return (
    <circle
      cx={cx}
      cy={cy}
      r={select ? 4 : 3}
      fill={select ? PALETTE.select : PALETTE.panel}
      stroke={select ? PALETTE.select : PALETTE.reject}
      strokeWidth={1.5}
      data-outcome={payload.outcome}
    />
  );
}

/** gate.csv: per optimizer step, the candidate's probe style rate against the best so far, and the decision. */
export function GatePanel({ steps }: { steps: GateRow[] }) {
  const { selected, rejected } = gateStats(steps);
  const points: GatePoint[] = steps.map((row, index) => ({ ...row, position: index + 1, unmeasured: isUnmeasured(row) ? 0 : null }));
  const byStep = stepsIncrease(steps);
  const xKey = byStep ? 'step' : 'position';
  const unmeasured = points.filter((p) => p.unmeasured !== null).length;
  return (
    <section className="card" data-testid="gate-panel" data-steps={steps.length}>
      <header className="card-header">
        <h3>Gate decisions (gate.csv)</h3>
        <span className="card-meta">
          {steps.length} steps · <span className="text-good">{selected} selected</span> · <span className="text-bad">{rejected} rejected</span>
          {unmeasured > 0 && <> ({unmeasured} before any probe)</>} · x: {byStep ? 'optimizer step' : 'candidate, in file order'}
        </span>
      </header>
      <div className="legend-row">
        <span className="legend-item">
          <span className="swatch" style={{ background: PALETTE.clean }} />
          candidate clean_rate (dot: <span className="text-good">●</span> select, <span className="text-bad">○</span> reject)
        </span>
        <span className="legend-item">
          <span className="swatch dashed" style={{ borderColor: PALETTE.best }} />
          best selected so far
        </span>
        <span className="legend-item">
          <span className="swatch" style={{ background: PALETTE.gold }} />
          gold_rate
        </span>
        {unmeasured > 0 && (
          <span className="legend-item">
            <span className="text-bad">✗</span> rejected before any probe round (not measured)
          </span>
        )}
      </div>
      <ResponsiveContainer width="100%" height={220}>
        <LineChart data={points} margin={CHART_MARGIN}>
          <CartesianGrid stroke={PALETTE.grid} vertical={false} />
          <XAxis dataKey={xKey} ticks={ticksOf(points.map((p) => (byStep ? p.step : p.position)))} tick={TICK_STYLE} stroke={PALETTE.grid} tickLine={false} />
          <YAxis
            width={Y_AXIS_WIDTH}
            domain={[0, 1]}
            ticks={[0, 0.25, 0.5, 0.75, 1]}
            tickFormatter={(v: number) => percent(v)}
            tick={TICK_STYLE}
            stroke={PALETTE.grid}
            tickLine={false}
          />
          <Tooltip content={GateTooltip} isAnimationActive={false} />
          <Line dataKey="gold_rate" stroke={PALETTE.gold} strokeWidth={1.25} strokeOpacity={0.8} dot={false} activeDot={false} isAnimationActive={false} />
          <Line
            dataKey="best"
            type="stepAfter"
            stroke={PALETTE.best}
            strokeDasharray="5 4"
            strokeWidth={1.5}
            dot={false}
            activeDot={false}
            isAnimationActive={false}
          />
          <Line dataKey="clean_rate" stroke={PALETTE.clean} strokeWidth={1.75} dot={OutcomeDot} activeDot={{ r: 5 }} isAnimationActive={false} />
          {unmeasured > 0 && <Line dataKey="unmeasured" stroke="none" dot={UnmeasuredMark} activeDot={false} isAnimationActive={false} legendType="none" />}
        </LineChart>
      </ResponsiveContainer>
      <p className="card-note">
        Reef&apos;s gate compared the candidate&apos;s probe style rate with the best so far. A gate on the style rate alone cannot tell a floor (every reply
        fails) from progress — GateLab&apos;s gate also checks pass, gold and answered rates against the serving version.
      </p>
    </section>
  );
}
