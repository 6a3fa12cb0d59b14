import type { Page } from '@playwright/test';

/** Console errors, CSP violations and page errors seen by the page; each test asserts there are none. */
export function watchConsole(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return problems;
}
