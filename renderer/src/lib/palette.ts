/**
 * Chart colours as literal values: SVG presentation attributes do not take
 * CSS variables everywhere, so the charts use these and styles.css repeats
 * them for HTML swatches. Chosen for contrast on the dark panels and to stay
 * distinguishable for the common colour-vision deficiencies (blue/orange
 * pairs; the accept line is also the thickest).
 */
export const PALETTE = {
  accept: '#3fb950',
  clean: '#39c5cf',
  bold: '#ff9e3d',
  list: '#c297ff',
  reference: '#8b949e',
  published: '#e3b341',
  adapted: '#56d364',
  rejected: '#6e3135',
  rejectedEdge: '#f85149',
  grid: '#262d36',
  axis: '#9aa4b2',
  text: '#e6edf3',
  panel: '#161b22',
  select: '#3fb950',
  reject: '#f85149',
  best: '#e3b341',
  gold: '#58a6ff',
  promotion: '#58a6ff',
  rollback: '#ff7b72',
} as const;
