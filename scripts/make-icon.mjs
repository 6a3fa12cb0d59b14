#!/usr/bin/env node
// Renders assets/icons/icon.svg to the PNG sizes packaging uses
// (assets/icons/icon.png 512 px, and icons/<n>x<n>.png for Linux), with
// Debian's chromium through playwright-core. Rerun after editing the SVG.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { repoRoot } from './lib/paths.mjs';

const svg = readFileSync(join(repoRoot, 'assets', 'icons', 'icon.svg'), 'utf8');
const browser = await chromium.launch({
  executablePath: process.env.GATELAB_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
try {
  const outDir = join(repoRoot, 'assets', 'icons');
  mkdirSync(join(outDir, 'linux'), { recursive: true });
  for (const size of [512, 256, 128, 64, 32]) {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    await page.setContent(
      `<html><body style="margin:0;background:transparent">${svg.replace('<svg ', `<svg width="${size}" height="${size}" `)}</body></html>`,
    );
    const file = size === 512 ? join(outDir, 'icon.png') : join(outDir, 'linux', `${size}x${size}.png`);
    await page.screenshot({ path: file, omitBackground: true });
    if (size === 512) await page.screenshot({ path: join(outDir, 'linux', '512x512.png'), omitBackground: true });
    await page.close();
    console.log(`wrote ${file}`);
  }
} finally {
  await browser.close();
}
