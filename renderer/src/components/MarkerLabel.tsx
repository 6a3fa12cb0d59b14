import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useChartWidth, usePlotArea, useXAxisScale } from 'recharts';
import { labelRows, placeMarkerLabels } from '../lib/markerLayout';
import { PALETTE } from '../lib/palette';

/** A vertical marker on a session chart: a line, and a labelled tag above the plot. */
export type ChartMarker = {
  readonly key: string;
  /**
   * The session the line stands at; `end` for something that happened after
   * the last session on the axis (a promotion decided once the run's
   * sessions were done): drawn at the plot's right edge.
   */
  readonly at: number | 'end';
  readonly label: string;
  readonly color: string;
  readonly dash?: string;
  readonly strokeWidth: number;
};

/** The height of one row of labels above the plot. */
export const LABEL_ROW = 24;
const LABEL_HEIGHT = 19;
const LABEL_PADDING = 7;
/** Room kept between a label and the chart's edge. */
const EDGE = 4;

/** A first guess at a label's width, before the drawn text has been measured. */
const estimatedWidth = (text: string): number => text.length * 7.5;

/** The top margin a chart needs for `rows` rows of labels (and a little air when there are none). */
export const labelsMargin = (rows: number): number => (rows === 0 ? 12 : rows * LABEL_ROW + 8);

/**
 * The markers' labels, laid out together inside the chart (each beside its
 * line, turned to the line's left near the right edge, overlapping ones on
 * separate rows), and the lines of markers after the last session. Tells the
 * chart how many rows of labels it needs above the plot.
 */
export function MarkerLayer({ markers, onRows }: { markers: readonly ChartMarker[]; onRows: (rows: number) => void }) {
  const scale = useXAxisScale();
  const plot = usePlotArea();
  const width = useChartWidth();
  // Each label's text as the browser drew it (fonts and fallback glyphs included): the layout uses these widths.
  const [measured, setMeasured] = useState<ReadonlyMap<string, number>>(new Map());
  const texts = useRef(new Map<string, SVGTextElement>());
  const placed = useMemo(() => {
    if (scale === undefined || plot === undefined || width === undefined) return [];
    const right = plot.x + plot.width;
    let ends = 0;
    // Markers after the last session stand side by side at the right edge, each line seen.
    const boxes = markers.map((marker) => ({
      key: marker.key,
      lineX: marker.at === 'end' ? right - 4 * ends++ : (scale(marker.at, { position: 'middle' }) ?? right),
      width: (measured.get(marker.label) ?? estimatedWidth(marker.label)) + 2 * LABEL_PADDING,
    }));
    const layout = placeMarkerLabels(boxes, EDGE, width - EDGE);
    return layout.map((label, i) => ({ ...label, marker: markers[i]!, lineX: boxes[i]!.lineX, width: Math.min(boxes[i]!.width, width - 2 * EDGE) }));
  }, [markers, scale, plot, width, measured]);
  // After every render on purpose (no dependency list): it measures what the browser drew, and
  // settles once no label's width moves by more than half a pixel.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  useLayoutEffect(() => {
    const changed = new Map<string, number>();
    for (const marker of markers) {
      const drawn = texts.current.get(marker.key)?.getComputedTextLength();
      if (drawn !== undefined && drawn > 0 && Math.abs((measured.get(marker.label) ?? -1) - drawn) > 0.5) changed.set(marker.label, drawn);
    }
    // Measuring the DOM before paint is what a layout effect that sets state is for.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    if (changed.size > 0) setMeasured((before) => new Map([...before, ...changed]));
  });
  const rows = labelRows(placed);
  useEffect(() => onRows(rows), [rows, onRows]);
  if (plot === undefined) return null;
  return (
    <g className="marker-layer">
      {placed
        .filter(({ marker }) => marker.at === 'end')
        .map(({ marker, lineX }) => (
          <line
            key={`line-${marker.key}`}
            className="marker-after-end"
            x1={lineX}
            x2={lineX}
            y1={plot.y}
            y2={plot.y + plot.height}
            stroke={marker.color}
            strokeWidth={marker.strokeWidth}
            strokeDasharray={marker.dash}
          />
        ))}
      {placed.map(({ marker, left, row, width: boxWidth }) => {
        const top = plot.y - (row + 1) * LABEL_ROW + 3;
        return (
          <g key={marker.key} className="marker-label" data-marker-label={marker.label} data-marker-at={marker.at}>
            <rect
              x={left}
              y={top}
              width={boxWidth}
              height={LABEL_HEIGHT}
              rx={4}
              fill={PALETTE.labelBackground}
              stroke={marker.color}
              strokeWidth={1}
              opacity={0.95}
            />
            <text
              ref={(element) => {
                if (element === null) texts.current.delete(marker.key);
                else texts.current.set(marker.key, element);
              }}
              x={left + LABEL_PADDING}
              y={top + 13.5}
              fill={marker.color}
              fontSize={12}
              fontWeight={600}
            >
              {marker.label}
            </text>
          </g>
        );
      })}
    </g>
  );
}
