import { useState } from 'react';
import type { YRange, Zoom } from '../lib/chartData';

/** A whole number typed into a field, or null. */
const wholeNumber = (text: string): number | null => (/^\s*-?\d+\s*$/.test(text) ? Number(text) : null);
/** A number typed into a field (a percentage may have decimals), or null. */
const decimal = (text: string): number | null => (text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : null);
/** A rate shown as a percentage without float noise (0.3 → "30"). */
const asPercent = (rate: number): string => String(Math.round(rate * 10_000) / 100);

/**
 * The axes' ranges typed in, as TensorBoard's and W&B's axis settings: the
 * sessions from–to (the same zoom a drag makes) and the y axis min–max in
 * percent; Reset restores both. A range that is no range is refused with the
 * reason, and the chart keeps the last good one.
 */
export function RangeControl({
  first,
  last,
  zoom,
  onZoom,
  yRange,
  onYRange,
}: {
  /** The first and last session of the range shown (before any zoom). */
  first: number;
  last: number;
  zoom: Zoom | null;
  onZoom: (zoom: Zoom | null) => void;
  yRange: YRange | null;
  onYRange: (range: YRange | null) => void;
}) {
  const from = zoom?.from ?? first;
  const to = zoom?.to ?? last;
  const min = yRange?.min ?? 0;
  const max = yRange?.max ?? 1;
  const [draft, setDraft] = useState({ from: String(from), to: String(to), min: asPercent(min), max: asPercent(max) });
  const [problem, setProblem] = useState<string | null>(null);
  // What the chart shows changed (a drag, Reset, another run): the fields follow it, in the same render.
  const [shown, setShown] = useState({ from, to, min, max });
  if (shown.from !== from || shown.to !== to || shown.min !== min || shown.max !== max) {
    setShown({ from, to, min, max });
    setDraft({ from: String(from), to: String(to), min: asPercent(min), max: asPercent(max) });
    setProblem(null);
  }

  const typeSessions = (next: { from: string; to: string }) => {
    setDraft((d) => ({ ...d, ...next }));
    const a = wholeNumber(next.from);
    const b = wholeNumber(next.to);
    if (a === null || b === null || a < first || b > last || a >= b) {
      setProblem(`Sessions: from must be below to, both within ${first}–${last}.`);
      return;
    }
    setProblem(null);
    onZoom(a === first && b === last ? null : { from: a, to: b });
  };
  const typeY = (next: { min: string; max: string }) => {
    setDraft((d) => ({ ...d, ...next }));
    const a = decimal(next.min);
    const b = decimal(next.max);
    if (a === null || b === null || a < 0 || b > 100 || a >= b) {
      setProblem('y: the minimum must be below the maximum, both within 0–100 %.');
      return;
    }
    setProblem(null);
    onYRange(a === 0 && b === 100 ? null : { min: a / 100, max: b / 100 });
  };

  return (
    <div className="range-control" role="group" aria-label="Axis ranges">
      <label>
        Sessions{' '}
        <input
          type="number"
          data-testid="range-from"
          aria-label="First session"
          min={first}
          max={last}
          step={1}
          value={draft.from}
          onChange={(e) => typeSessions({ from: e.currentTarget.value, to: draft.to })}
        />
        –
        <input
          type="number"
          data-testid="range-to"
          aria-label="Last session"
          min={first}
          max={last}
          step={1}
          value={draft.to}
          onChange={(e) => typeSessions({ from: draft.from, to: e.currentTarget.value })}
        />
      </label>
      <label>
        y{' '}
        <input
          type="number"
          data-testid="range-ymin"
          aria-label="y minimum, percent"
          min={0}
          max={100}
          step={5}
          value={draft.min}
          onChange={(e) => typeY({ min: e.currentTarget.value, max: draft.max })}
        />
        –
        <input
          type="number"
          data-testid="range-ymax"
          aria-label="y maximum, percent"
          min={0}
          max={100}
          step={5}
          value={draft.max}
          onChange={(e) => typeY({ min: draft.min, max: e.currentTarget.value })}
        />
        %
      </label>
      <button
        type="button"
        className="button secondary small"
        data-testid="range-reset"
        title="All the sessions of the range, y from 0 to 100 %"
        disabled={zoom === null && yRange === null && problem === null}
        onClick={() => {
          onZoom(null);
          onYRange(null);
          setDraft({ from: String(first), to: String(last), min: '0', max: '100' });
          setProblem(null);
        }}
      >
        Reset
      </button>
      {problem !== null && (
        <span className="text-bad small" role="alert" data-testid="range-problem">
          {problem}
        </span>
      )}
    </div>
  );
}
