// Does a probe round pass? The candidate must not regress against the serving
// version, measured on the same problems and seeds, on correctness (gold),
// completeness (answered), the full criterion (pass) and style (violations),
// each within the recipe's margin. Never on the style rate alone: when every
// reply already fails on style (the floor effect), a style-only gate waves
// garbage through; gold and answered rates still catch it.
import type { ProbeMetrics } from './probeMetrics';
import type { Floors, Margins } from '../recipe/recipeSchema';

export type GatedMetric = keyof Margins;

// Rates over n replies are multiples of 1/n; the tolerance only absorbs
// floating-point noise so that "exactly at the margin" passes.
const EPSILON = 1e-9;

export type RoundVerdict = { passed: boolean; failing: string[]; metrics: GatedMetric[] };

export function judgeRound(
  candidate: ProbeMetrics,
  serving: ProbeMetrics,
  margins: Margins,
  floors: Floors = { gold_rate: 0, answered_rate: 0 },
): RoundVerdict {
  const failing: string[] = [];
  const metrics: GatedMetric[] = [];
  // Absolute floors first: when serving itself answers nothing right, "no
  // regression against serving" would pass anything.
  for (const metric of ['gold_rate', 'answered_rate'] as const) {
    if (candidate[metric] < floors[metric] - EPSILON) {
      metrics.push(metric);
      failing.push(`${metric} ${fmt(candidate[metric])} < floor ${fmt(floors[metric])}`);
    }
  }
  const higherIsBetter = ['pass_rate', 'gold_rate', 'answered_rate'] as const;
  for (const metric of higherIsBetter) {
    const floor = serving[metric] - margins[metric];
    if (candidate[metric] < floor - EPSILON) {
      if (!metrics.includes(metric)) metrics.push(metric);
      failing.push(`${metric} ${fmt(candidate[metric])} < serving ${fmt(serving[metric])} − margin ${fmt(margins[metric])}`);
    }
  }
  const ceiling = serving.mean_violations + margins.mean_violations;
  if (candidate.mean_violations > ceiling + EPSILON) {
    metrics.push('mean_violations');
    failing.push(`mean_violations ${fmt(candidate.mean_violations)} > serving ${fmt(serving.mean_violations)} + margin ${fmt(margins.mean_violations)}`);
  }
  return { passed: failing.length === 0, failing, metrics };
}

const fmt = (x: number): string => String(Math.round(x * 1000) / 1000);
