import { useState, type ReactNode } from 'react';
import { ReferenceArea } from 'recharts';
import type { MouseHandlerDataParam } from 'recharts';
import type { Zoom } from '../lib/chartData';
import { PALETTE } from '../lib/palette';

const sessionOf = (state: MouseHandlerDataParam): number | null => {
  const label = state.activeLabel;
  const value = typeof label === 'string' ? Number(label) : label;
  return typeof value === 'number' && Number.isInteger(value) ? value : null;
};

/**
 * Drag across a chart to zoom into the sessions spanned (as in TensorBoard
 * and W&B): the chart's mouse handlers, and the band to draw while dragging.
 * A click (one session) is not a zoom.
 */
export function useDragZoom(onZoom: (zoom: Zoom) => void) {
  const [drag, setDrag] = useState<{ from: number; to: number } | null>(null);
  const handlers = {
    onMouseDown: (state: MouseHandlerDataParam) => {
      const session = sessionOf(state);
      if (session !== null) setDrag({ from: session, to: session });
    },
    onMouseMove: (state: MouseHandlerDataParam) => {
      const session = sessionOf(state);
      if (drag !== null && session !== null && session !== drag.to) setDrag({ ...drag, to: session });
    },
    onMouseUp: () => {
      if (drag !== null && drag.from !== drag.to) onZoom({ from: Math.min(drag.from, drag.to), to: Math.max(drag.from, drag.to) });
      setDrag(null);
    },
    onMouseLeave: () => setDrag(null),
    // Recharts runs mouse moves (and the tooltip's active label they set) once per
    // animation frame but a mouse-up at once: a quick release would end the drag on
    // the session of an earlier move. Unthrottled, the zoom ends where the mouse let go.
    throttledEvents: [] as const,
  };
  // The band while dragging, drawn inside the chart.
  const band =
    drag !== null && drag.from !== drag.to ? (
      <ReferenceArea x1={Math.min(drag.from, drag.to)} x2={Math.max(drag.from, drag.to)} fill={PALETTE.axis} fillOpacity={0.15} />
    ) : null;
  return { handlers, band };
}

/** Above a chart: the axis ranges (typed, or the zoom it shows), what lies outside the view, and its exports. */
export function ChartToolbar({
  zoom,
  onReset,
  onPng,
  onSvg,
  onCsv,
  disabled,
  problem,
  range,
  note,
  title,
}: {
  zoom: Zoom | null;
  onReset: () => void;
  onPng: () => void;
  onSvg: () => void;
  onCsv: () => void;
  disabled: boolean;
  problem: string | null;
  /** The typed axis ranges; null where one control above several charts sets them; absent: a hint to drag. */
  range?: ReactNode | null;
  /** A line about what the chart does not show (markers outside the sessions in view). */
  note?: string | null;
  /** The chart's name, where a control above several charts sets their ranges. */
  title?: string;
}) {
  return (
    <div className="chart-toolbar">
      {range === undefined ? (
        <span className="muted small" data-testid="zoom-state">
          {zoom === null ? 'Drag across the chart to zoom into sessions.' : `Sessions ${zoom.from}–${zoom.to}`}
        </span>
      ) : range === null ? (
        <span className="toolbar-spacer">{title !== undefined && <h4 className="chart-title">{title}</h4>}</span>
      ) : (
        <>
          {range}
          <span className="muted small" data-testid="zoom-state">
            {zoom === null ? 'or drag across the chart' : `Sessions ${zoom.from}–${zoom.to}`}
          </span>
        </>
      )}
      {note !== undefined && note !== null && (
        <span className="muted chart-note" data-testid="chart-note">
          {note}
        </span>
      )}
      {zoom !== null && (
        <button type="button" className="button secondary small" data-testid="zoom-reset" onClick={onReset}>
          Reset zoom
        </button>
      )}
      <button
        type="button"
        className="button secondary small"
        data-testid="export-png"
        onClick={onPng}
        disabled={disabled}
        title="The chart as drawn, with its title and legend"
      >
        PNG
      </button>
      <button
        type="button"
        className="button secondary small"
        data-testid="export-svg"
        onClick={onSvg}
        disabled={disabled}
        title="The chart as drawn, with its title and legend, as vector graphics"
      >
        SVG
      </button>
      <button
        type="button"
        className="button secondary small"
        data-testid="export-csv"
        onClick={onCsv}
        disabled={disabled}
        title="The sessions in view: raw values, then the series as smoothed"
      >
        CSV
      </button>
      {problem !== null && (
        <span className="text-bad small" role="alert">
          {problem}
        </span>
      )}
    </div>
  );
}
