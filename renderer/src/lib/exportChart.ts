/**
 * Saving what a chart shows: the SVG recharts drew, titled and with its
 * legend, as an SVG or a PNG a person can put in a report, and text (CSV) as
 * a download. The File/Blob/canvas APIs only,
 * the same in Electron (which asks where to save) and in a browser.
 */

/** Presentation properties a standalone SVG must carry itself: the page's CSS (and theme variables) does not go with it. */
const INLINED = [
  'fill',
  'fill-opacity',
  'stroke',
  'stroke-width',
  'stroke-dasharray',
  'stroke-opacity',
  'opacity',
  'font-family',
  'font-size',
  'font-weight',
  'text-anchor',
  'dominant-baseline',
  'visibility',
] as const;

/** A legend entry drawn above the chart in an export (the on-screen legend is HTML, not part of the chart's SVG). */
export type LegendEntry = { readonly label: string; readonly color: string; readonly dashed?: boolean };

/** Resolves a CSS colour (a theme variable, say) to the literal the canvas needs. */
export function resolveColor(color: string, within: Element): string {
  const probe = document.createElement('span');
  probe.style.color = color;
  within.appendChild(probe);
  const resolved = getComputedStyle(probe).color;
  probe.remove();
  return resolved;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** The chart's SVG with every element's computed presentation written onto it, so it renders the same on its own. */
function standaloneChart(svg: SVGSVGElement): { chart: SVGSVGElement; width: number; height: number } {
  const clone = svg.cloneNode(true) as SVGSVGElement;
  const originals = [svg, ...svg.querySelectorAll('*')];
  const copies = [clone, ...clone.querySelectorAll('*')];
  originals.forEach((original, i) => {
    const copy = copies[i];
    if (!(copy instanceof SVGElement)) return;
    const style = getComputedStyle(original);
    for (const property of INLINED) copy.style.setProperty(property, style.getPropertyValue(property));
  });
  const { width, height } = svg.getBoundingClientRect();
  const w = Math.round(width);
  const h = Math.round(height);
  clone.setAttribute('width', String(w));
  clone.setAttribute('height', String(h));
  // Its size on the page was relative to its box; inside the export it is its own.
  clone.style.setProperty('width', `${w}px`);
  clone.style.setProperty('height', `${h}px`);
  return { chart: clone, width: w, height: h };
}

function loadImage(src: string): Promise<HTMLImageElement> {
  return new Promise((resolve, reject) => {
    const image = new Image();
    image.onload = () => resolve(image);
    image.onerror = () => reject(new Error('the chart could not be drawn as an image'));
    image.src = src;
  });
}

const PAD = 12;
const TITLE_FONT = 14;
const LEGEND_FONT = 12;
const LINE = 20;
const SWATCH = 18;

/** Words laid into lines no wider than `width` (a word wider than the line gets a line of its own). */
function wrapWords(text: string, width: number, measure: (text: string) => number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    const next = line === '' ? word : `${line} ${word}`;
    if (line !== '' && measure(next) > width) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line !== '') lines.push(line);
  return lines;
}

function svgElement<K extends keyof SVGElementTagNameMap>(name: K, attributes: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

/**
 * The chart as a standalone SVG document: the title (wrapped to the chart's
 * width), the legend (entries flowing onto as many lines as they need), then
 * the chart, on the theme's panel colour. Nothing is cut: the header grows
 * to hold what it says.
 */
export function chartSvg(frame: HTMLElement, title: string, legend: readonly LegendEntry[]): { svg: string; width: number; height: number } {
  const surface = frame.querySelector('svg.recharts-surface');
  if (!(surface instanceof SVGSVGElement)) throw new Error('no chart to export');
  const { chart, width, height } = standaloneChart(surface);
  const frameStyle = getComputedStyle(frame);
  const font = frameStyle.fontFamily;
  const ink = frameStyle.color;
  const context = document.createElement('canvas').getContext('2d');
  const measure = (text: string, size: number, weight: number) => {
    if (context === null) return text.length * size * 0.62;
    context.font = `${weight} ${size}px ${font}`;
    return context.measureText(text).width;
  };
  const room = width - 2 * PAD;
  const titleLines = wrapWords(title, room, (text) => measure(text, TITLE_FONT, 600));
  // Legend entries: a swatch and a label each, flowing onto lines.
  const placed: { entry: LegendEntry; x: number; line: number }[] = [];
  let x = PAD;
  let line = 0;
  for (const entry of legend) {
    const entryWidth = SWATCH + 6 + measure(entry.label, LEGEND_FONT, 400);
    if (x > PAD && x + entryWidth > width - PAD) {
      line++;
      x = PAD;
    }
    placed.push({ entry, x, line });
    x += entryWidth + 18;
  }
  const legendTop = PAD + titleLines.length * LINE + 4;
  const header = legendTop + (placed.length === 0 ? 0 : (line + 1) * LINE) + 4;
  const total = header + height;

  const root = svgElement('svg', { width, height: total, viewBox: `0 0 ${width} ${total}` });
  root.appendChild(svgElement('rect', { x: 0, y: 0, width, height: total, fill: resolveColor('var(--panel)', frame) }));
  titleLines.forEach((text, i) => {
    root.appendChild(svgElement('text', { x: PAD, y: PAD + 14 + i * LINE, fill: ink, 'font-family': font, 'font-size': TITLE_FONT, 'font-weight': 600 }, text));
  });
  for (const { entry, x: left, line: row } of placed) {
    const y = legendTop + row * LINE + 10;
    const color = resolveColor(entry.color, frame);
    root.appendChild(
      svgElement('line', {
        x1: left,
        x2: left + SWATCH,
        y1: y,
        y2: y,
        stroke: color,
        'stroke-width': 3,
        ...(entry.dashed === true ? { 'stroke-dasharray': '5 3' } : {}),
      }),
    );
    root.appendChild(svgElement('text', { x: left + SWATCH + 6, y: y + 4, fill: ink, 'font-family': font, 'font-size': LEGEND_FONT }, entry.label));
  }
  chart.setAttribute('x', '0');
  chart.setAttribute('y', String(header));
  root.appendChild(chart);
  return { svg: new XMLSerializer().serializeToString(root), width, height: total };
}

/** The chart as a PNG: the same document as the SVG export, at twice the screen's resolution. */
export async function chartPng(frame: HTMLElement, title: string, legend: readonly LegendEntry[]): Promise<Blob> {
  const { svg, width, height } = chartSvg(frame, title, legend);
  const image = await loadImage(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`);
  const scale = 2;
  const canvas = document.createElement('canvas');
  canvas.width = width * scale;
  canvas.height = height * scale;
  const context = canvas.getContext('2d');
  if (context === null) throw new Error('no 2D canvas');
  context.scale(scale, scale);
  context.drawImage(image, 0, 0, width, height);
  return new Promise((resolve, reject) =>
    canvas.toBlob((blob) => (blob === null ? reject(new Error('the PNG could not be encoded')) : resolve(blob)), 'image/png'),
  );
}

/** Offers a file to the person: a download in a browser, a save dialog in Electron. */
export function saveFile(name: string, content: Blob | string, type = 'text/csv'): void {
  const blob = typeof content === 'string' ? new Blob([content], { type }) : content;
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.appendChild(link);
  link.click();
  link.remove();
  // The download has its own reference to the blob by now.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A file-name-safe form of a run's name. */
export function fileStem(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'curve';
}
