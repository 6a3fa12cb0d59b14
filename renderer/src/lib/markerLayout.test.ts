import { describe, expect, it } from 'vitest';
import { labelRows, placeMarkerLabels } from './markerLayout';

describe('marker label placement', () => {
  it('puts a label right of its line, or left of it near the right edge, always inside the chart', () => {
    const [left, nearEdge, wide] = placeMarkerLabels(
      [
        { key: 'a', lineX: 100, width: 80 },
        { key: 'b', lineX: 580, width: 120 },
        { key: 'c', lineX: 300, width: 900 },
      ],
      4,
      596,
    );
    expect(left).toEqual({ key: 'a', left: 105, row: 0 });
    expect(nearEdge!.left).toBe(580 - 5 - 120);
    // Wider than the chart: clamped to it.
    expect(wide!.left).toBe(4);
  });

  it('stacks labels that would overlap onto separate rows, and reuses a row where they do not', () => {
    const placed = placeMarkerLabels(
      [
        { key: 'published', lineX: 200, width: 300 },
        { key: 'adapted', lineX: 260, width: 150 },
        { key: 'after-1', lineX: 596, width: 100 },
        { key: 'after-2', lineX: 596, width: 100 },
      ],
      4,
      600,
    );
    expect(placed.map((p) => p.row)).toEqual([0, 1, 1, 2]);
    expect(labelRows(placed)).toBe(3);
    for (const p of placed) expect(p.left).toBeGreaterThanOrEqual(4);
  });
});
