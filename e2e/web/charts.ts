import { readFile } from 'node:fs/promises';
import type { Locator, Page } from '@playwright/test';

/** Clicks `button` and returns the file it offers for download. */
export async function download(page: Page, button: Locator): Promise<{ name: string; bytes: Buffer }> {
  const [file] = await Promise.all([page.waitForEvent('download'), button.click()]);
  return { name: file.suggestedFilename(), bytes: await readFile(await file.path()) };
}

/** The centre of a session's band on a chart of `count` sessions starting at `first`. */
export async function sessionPoint(chart: Locator, session: number, first: number, count: number): Promise<{ x: number; y: number }> {
  const grid = await chart.locator('.recharts-cartesian-grid').boundingBox();
  if (grid === null) throw new Error('no chart grid');
  return { x: grid.x + ((session - first + 0.5) * grid.width) / count, y: grid.y + grid.height / 2 };
}

/** Drags across a chart from one session to another (the chart's zoom). */
export async function dragAcross(page: Page, chart: Locator, from: number, to: number, first: number, count: number): Promise<void> {
  await chart.scrollIntoViewIfNeeded();
  const a = await sessionPoint(chart, from, first, count);
  const b = await sessionPoint(chart, to, first, count);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move(b.x, b.y, { steps: 12 });
  await page.mouse.up();
  await page.mouse.move(0, 0);
}

/**
 * Every text of every chart inside `scope` that is not wholly inside its
 * SVG's box — what the SVG cuts off on screen (and in an export drawn from
 * it) — and every chart SVG that reaches past the main pane. Empty when
 * nothing is cut.
 */
export async function clippedChartTexts(scope: Locator): Promise<string[]> {
  return scope.evaluate((root) => {
    const out: string[] = [];
    const pane = root.closest('main.main')?.getBoundingClientRect() ?? null;
    for (const svg of root.querySelectorAll('svg')) {
      const box = svg.getBoundingClientRect();
      if (box.width === 0) continue;
      if (pane !== null && box.right > pane.right + 1) out.push(`a chart reaches ${Math.round(box.right)}px, the pane ends at ${Math.round(pane.right)}px`);
      for (const text of svg.querySelectorAll('text')) {
        const t = text.getBoundingClientRect();
        if (t.width === 0 && t.height === 0) continue;
        const inside = t.left >= box.left - 0.5 && t.right <= box.right + 0.5 && t.top >= box.top - 0.5 && t.bottom <= box.bottom + 0.5;
        if (!inside) {
          out.push(
            `"${text.textContent ?? ''}" spans x ${Math.round(t.left - box.left)}…${Math.round(t.right - box.left)}, y ${Math.round(t.top - box.top)}…${Math.round(t.bottom - box.top)} in a ${Math.round(box.width)}×${Math.round(box.height)} chart`,
          );
        }
      }
    }
    return out;
  });
}

/**
 * What of an exported PNG is cut off at its right edge: the columns of the
 * image's last few pixels must be the background alone (the chart keeps a
 * margin there; a title, legend entry or label running off the image leaves
 * ink in them). Returns the rows with ink there, and the image's size.
 */
export async function pngRightEdgeInk(page: Page, png: Buffer, columns = 4): Promise<{ width: number; height: number; inkRows: number[] }> {
  return page.evaluate(
    async ({ base64, columns }) => {
      const image = new Image();
      image.src = `data:image/png;base64,${base64}`;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.naturalWidth;
      canvas.height = image.naturalHeight;
      const context = canvas.getContext('2d');
      if (context === null) throw new Error('no 2D canvas');
      context.drawImage(image, 0, 0);
      const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
      const at = (x: number, y: number) => data.slice((y * canvas.width + x) * 4, (y * canvas.width + x) * 4 + 4).join(',');
      const background = at(canvas.width - 1, 0);
      const inkRows: number[] = [];
      for (let y = 0; y < canvas.height; y++) {
        for (let x = canvas.width - columns; x < canvas.width; x++) {
          if (at(x, y) !== background) {
            inkRows.push(y);
            break;
          }
        }
      }
      return { width: canvas.width, height: canvas.height, inkRows };
    },
    { base64: png.toString('base64'), columns },
  );
}

/**
 * Every text of an exported SVG document that is not wholly inside it, the
 * document drawn on a blank page of its own (as a file opened in a browser,
 * with no page styles or policy of the app's around it): empty when its
 * title, legend and labels all fit. Also returns its size, which its PNG is
 * drawn at (×2).
 */
export async function svgTextsOutside(page: Page, svg: string): Promise<{ width: number; height: number; outside: string[]; texts: string[] }> {
  const blank = await page.context().newPage();
  try {
    await blank.setContent(`<!doctype html><html><body style="margin:0">${svg}</body></html>`);
    return await blank.evaluate(() => {
      const root = document.querySelector('svg');
      if (root === null) return { width: 0, height: 0, outside: ['no svg in the export'], texts: [] };
      const box = root.getBoundingClientRect();
      const outside: string[] = [];
      const texts: string[] = [];
      for (const text of root.querySelectorAll('text')) {
        const t = text.getBoundingClientRect();
        if (t.width === 0 && t.height === 0) continue;
        texts.push(text.textContent ?? '');
        if (t.left < box.left - 0.5 || t.right > box.right + 0.5 || t.top < box.top - 0.5 || t.bottom > box.bottom + 0.5) {
          outside.push(`"${text.textContent ?? ''}" spans x ${Math.round(t.left - box.left)}…${Math.round(t.right - box.left)} of ${Math.round(box.width)}`);
        }
      }
      return { width: Math.round(box.width), height: Math.round(box.height), outside, texts };
    });
  } finally {
    await blank.close();
  }
}
