import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { TooltipContentProps } from 'recharts';
import type { GateRow } from '../../../electron/contract/runs';
import { gateStats } from '../lib/chartData';
import { percent } from '../lib/format';
import { PALETTE } from '../lib/palette';
import { CHART_MARGIN, TICK_STYLE, Y_AXIS_WIDTH } from './chartLayout';

function GateTooltip({ active, payload }: TooltipContentProps) {
  const row = payload?.[0]?.payload as GateRow | undefined;
  if (!active || row === undefined) return null;
  return (
    <div className="chart-tooltip">
      <div className="chart-tooltip-title">
        Step {row.step} · <span className={row.outcome === 'select' ? 'text-good' : 'text-bad'}>{row.outcome}</span>
      </div>
      <table>
        <tbody>
          <tr><td>candidate clean_rate</td><td className="num">{percent(row.clean_rate, 1)}</td></tr>
          <tr><td>best so far</td><td className="num">{percent(row.best, 1)}</td></tr>
          <tr><td>gold_rate</td><td className="num">{percent(row.gold_rate, 1)}</td></tr>
          <tr><td>answered_rate</td><td className="num">{percent(row.answered_rate, 1)}</td></tr>
        </tbody>
      </table>
    </div>
  );
}

/** Ticks every 5 steps (plus the first). */
function stepTicks(steps: readonly GateRow[]): number[] {
  return steps.filter((row, index) => index === 0 || row.step % 5 === 0).map((row) => row.step);
}

/** A dot per step, coloured by the gate's outcome (the only series where dots carry data). */
function OutcomeDot(props: { cx?: number; cy?: number; payload?: GateRow }) {
  const { cx, cy, payload } = props;
  if (cx === undefined || cy === undefined || payload === undefined) return <g />;
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
  return (
    <section className="card" data-testid="gate-panel" data-steps={steps.length}>
      <header className="card-header">
        <h3>Gate decisions (gate.csv)</h3>
        <span className="card-meta">
          {steps.length} steps · <span className="text-good">{selected} selected</span> ·{' '}
          <span className="text-bad">{rejected} rejected</span>
        </span>
      </header>
      <div className="legend-row">
        <span className="legend-item"><span className="swatch" style={{ background: PALETTE.clean }} />candidate clean_rate (dot: <span className="text-good">●</span> select, <span className="text-bad">○</span> reject)</span>
        <span className="legend-item"><span className="swatch dashed" style={{ borderColor: PALETTE.best }} />best selected so far</span>
        <span className="legend-item"><span className="swatch" style={{ background: PALETTE.gold }} />gold_rate</span>
      </div>
      <ResponsiveContainer width="100%" height={220}>
        <LineChart data={steps} margin={CHART_MARGIN}>
          <CartesianGrid stroke={PALETTE.grid} vertical={false} />
          <XAxis dataKey="step" ticks={stepTicks(steps)} tick={TICK_STYLE} stroke={PALETTE.grid} tickLine={false} />
          <YAxis width={Y_AXIS_WIDTH} domain={[0, 1]} ticks={[0, 0.25, 0.5, 0.75, 1]} tickFormatter={(v: number) => percent(v)} tick={TICK_STYLE} stroke={PALETTE.grid} tickLine={false} />
          <Tooltip content={GateTooltip} isAnimationActive={false} />
          <Line dataKey="gold_rate" stroke={PALETTE.gold} strokeWidth={1.25} strokeOpacity={0.8} dot={false} activeDot={false} isAnimationActive={false} />
          <Line dataKey="best" type="stepAfter" stroke={PALETTE.best} strokeDasharray="5 4" strokeWidth={1.5} dot={false} activeDot={false} isAnimationActive={false} />
          <Line dataKey="clean_rate" stroke={PALETTE.clean} strokeWidth={1.75} dot={OutcomeDot} activeDot={{ r: 5 }} isAnimationActive={false} />
        </LineChart>
      </ResponsiveContainer>
      <p className="card-note">
        Reef&apos;s gate compared the candidate&apos;s probe style rate with the best so far. A gate on the style rate alone
        cannot tell a floor (every reply fails) from progress — GateLab&apos;s gate also checks pass, gold and answered
        rates against the serving version.
      </p>
    </section>
  );
}
