import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { SCREENSHOT_DIR } from '../paths';

/** The smallest window the desktop is built for: every screen must read whole at this size. */
export const SMALL_WINDOW = { width: 1280, height: 720 } as const;

/**
 * What is cut off in the main pane: elements whose content is wider than
 * their box with the overflow hidden or scrolled away (a table column you
 * would have to scroll to), and elements that reach past the pane's right
 * edge. `allowScroll` names containers meant to scroll sideways (a table of
 * many columns). Empty when nothing is clipped.
 */
export async function clippedElements(page: Page, allowScroll: readonly string[] = []): Promise<string[]> {
  return page.evaluate((allowed) => {
    const main = document.querySelector('main.main');
    if (main === null) return ['no main pane'];
    const right = main.getBoundingClientRect().right;
    const out: string[] = [];
    const name = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.getAttribute('data-testid') ? `[data-testid=${el.getAttribute('data-testid')}]` : ''}.${[...el.classList].join('.')}`;
    for (const el of main.querySelectorAll('*')) {
      if (!(el instanceof HTMLElement) || el.offsetParent === null) continue;
      if (allowed.some((selector) => el.closest(selector) !== null)) continue;
      const style = getComputedStyle(el);
      const hides = style.overflowX !== 'visible';
      if (hides && el.scrollWidth > el.clientWidth + 1 && style.textOverflow !== 'ellipsis')
        out.push(`${name(el)}: content ${el.scrollWidth}px in ${el.clientWidth}px`);
      const box = el.getBoundingClientRect();
      if (box.width > 0 && box.right > right + 1) out.push(`${name(el)}: reaches ${Math.round(box.right)}px, the pane ends at ${Math.round(right)}px`);
    }
    return out;
  }, allowScroll);
}

/**
 * Screenshots of the screen at 1280×720 in both themes (the system's
 * preference, which the app follows by default): `<name>-dark.png` and
 * `<name>-light.png`. Leaves the page in the light scheme.
 */
export async function shootBothThemes(page: Page, name: string, prepare?: () => Promise<void>): Promise<void> {
  await page.setViewportSize(SMALL_WINDOW);
  await page.mouse.move(0, 0); // no tooltip left open over a chart
  for (const scheme of ['dark', 'light'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.locator('html').waitFor({ state: 'attached' });
    await page.waitForFunction((want) => document.documentElement.dataset['theme'] === want, scheme);
    await prepare?.();
    await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}-${scheme}.png`) });
  }
}
