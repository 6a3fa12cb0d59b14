/**
 * Saving what a chart shows: the SVG recharts drew, as a PNG a person can put
 * in a report, and text (CSV) as a download. The File/Blob/canvas APIs only,
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

/** A legend entry drawn above the chart in the PNG (the on-screen legend is HTML, not part of the SVG). */
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

/** The SVG with every element's computed presentation written onto it, so it renders the same on its own. */
function standaloneSvg(svg: SVGSVGElement): string {
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
  clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  clone.setAttribute('width', String(Math.round(width)));
  clone.setAttribute('height', String(Math.round(height)));
  return new XMLSerializer().serializeToString(clone);
}

function loadImage(src: string): Promise<HTMLImageElement> {
  return new Promise((resolve, reject) => {
    const image = new Image();
    image.onload = () => resolve(image);
    image.onerror = () => reject(new Error('the chart could not be drawn as an image'));
    image.src = src;
  });
}

/**
 * The chart as a PNG: a title line, the legend, then the chart, on the
 * theme's panel colour, at twice the screen's resolution.
 */
export async function chartPng(frame: HTMLElement, title: string, legend: readonly LegendEntry[]): Promise<Blob> {
  const svg = frame.querySelector('svg.recharts-surface');
  if (!(svg instanceof SVGSVGElement)) throw new Error('no chart to export');
  const image = await loadImage(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(standaloneSvg(svg))}`);
  const scale = 2;
  const header = 56;
  const canvas = document.createElement('canvas');
  canvas.width = image.width * scale;
  canvas.height = (image.height + header) * scale;
  const context = canvas.getContext('2d');
  if (context === null) throw new Error('no 2D canvas');
  context.scale(scale, scale);
  const frameStyle = getComputedStyle(frame);
  context.fillStyle = resolveColor('var(--panel)', frame);
  context.fillRect(0, 0, image.width, image.height + header);
  context.fillStyle = frameStyle.color;
  context.font = `600 14px ${frameStyle.fontFamily}`;
  context.fillText(title, 12, 20);
  context.font = `12px ${frameStyle.fontFamily}`;
  let x = 12;
  for (const entry of legend) {
    context.strokeStyle = resolveColor(entry.color, frame);
    context.lineWidth = 3;
    context.setLineDash(entry.dashed === true ? [5, 3] : []);
    context.beginPath();
    context.moveTo(x, 40);
    context.lineTo(x + 18, 40);
    context.stroke();
    context.fillStyle = frameStyle.color;
    context.fillText(entry.label, x + 24, 44);
    x += 24 + context.measureText(entry.label).width + 18;
  }
  context.setLineDash([]);
  context.drawImage(image, 0, header);
  return new Promise((resolve, reject) => canvas.toBlob((blob) => (blob === null ? reject(new Error('the PNG could not be encoded')) : resolve(blob)), 'image/png'));
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
