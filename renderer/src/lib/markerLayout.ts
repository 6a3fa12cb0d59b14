/**
 * Where the labels of a chart's vertical markers go: each beside its line,
 * on the right of it unless that would run past the chart's edge (then on
 * its left), never outside the chart; labels that would overlap go on
 * separate rows. Pure geometry, so it can be checked without a browser.
 */

/** A label to place: the x of its line and its width, in the chart's pixels. */
export type MarkerLabelBox = { readonly key: string; readonly lineX: number; readonly width: number };

/** Where a label goes: its left edge and its row (0 nearest the plot). */
export type PlacedLabel = { readonly key: string; readonly left: number; readonly row: number };

/** The gap between a line and its label, and between labels on one row. */
const GAP = 5;

/**
 * Places labels within [minX, maxX]. The first label keeps row 0 when it can;
 * each later one takes the lowest row where it overlaps nothing.
 */
export function placeMarkerLabels(labels: readonly MarkerLabelBox[], minX: number, maxX: number): PlacedLabel[] {
  const rows: { left: number; right: number }[][] = [];
  return labels.map((label) => {
    const width = Math.min(label.width, maxX - minX);
    let left = label.lineX + GAP;
    if (left + width > maxX) left = label.lineX - GAP - width;
    left = Math.max(minX, Math.min(left, maxX - width));
    const right = left + width;
    let row = rows.findIndex((taken) => taken.every((box) => right + GAP <= box.left || left >= box.right + GAP));
    if (row < 0) {
      row = rows.length;
      rows.push([]);
    }
    rows[row]!.push({ left, right });
    return { key: label.key, left, row };
  });
}

/** How many rows the placed labels take. */
export function labelRows(placed: readonly PlacedLabel[]): number {
  return placed.reduce((rows, label) => Math.max(rows, label.row + 1), 0);
}
