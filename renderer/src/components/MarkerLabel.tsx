import type { ViewBox } from 'recharts/types/util/types';
import { PALETTE } from '../lib/palette';

/**
 * The label of a vertical marker: a filled tag at the top of the line, so it
 * reads against the grid and the series. `row` stacks labels that may sit
 * close together (published vs. reached adaptation).
 */
export function markerLabel(text: string, color: string, row: number) {
  return function MarkerLabelContent(props: { viewBox?: ViewBox }) {
    const box = props.viewBox;
    if (box === undefined || !('x' in box) || box.x === undefined || box.y === undefined) return <g />;
    const width = text.length * 7.4 + 14;
    const x = box.x + 5;
    const y = box.y + 6 + row * 24;
    return (
      <g className="marker-label" data-marker-label={text}>
        <rect x={x} y={y} width={width} height={19} rx={4} fill={PALETTE.labelBackground} stroke={color} strokeWidth={1} opacity={0.95} />
        <text x={x + 7} y={y + 13.5} fill={color} fontSize={12} fontWeight={600}>
          {text}
        </text>
      </g>
    );
  };
}
