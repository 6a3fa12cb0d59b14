/**
 * Chart colours, named by role. Each is a CSS variable of theme.css (one
 * value per theme), which SVG presentation attributes and inline styles
 * resolve in Chromium — so a chart follows the theme without re-rendering.
 * Chosen for contrast on each theme's panels and to stay distinguishable for
 * the common colour-vision deficiencies (blue/orange pairs; the accept line
 * is also the thickest). Code that needs a literal colour (a canvas, an
 * exported file) reads the variable with getComputedStyle.
 */
export const PALETTE = {
  accept: 'var(--chart-accept)',
  clean: 'var(--chart-clean)',
  bold: 'var(--chart-bold)',
  list: 'var(--chart-list)',
  reference: 'var(--chart-reference)',
  published: 'var(--chart-published)',
  adapted: 'var(--chart-adapted)',
  rejected: 'var(--chart-rejected)',
  rejectedEdge: 'var(--chart-rejected-edge)',
  grid: 'var(--chart-grid)',
  axis: 'var(--chart-axis)',
  text: 'var(--chart-text)',
  panel: 'var(--chart-panel)',
  labelBackground: 'var(--chart-label-bg)',
  select: 'var(--chart-select)',
  reject: 'var(--chart-reject)',
  best: 'var(--chart-best)',
  gold: 'var(--chart-gold)',
  promotion: 'var(--chart-promotion)',
  rollback: 'var(--chart-rollback)',
} as const;
