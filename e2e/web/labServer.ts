import { test as base } from '@playwright/test';
import { startBrowserMode } from './browserMode';

export interface LabProcess {
  /** The URL with the launch token, as printed. */
  url: string;
  origin: string;
  token: string;
  output: () => string;
}

/** Browser mode as `npm start` runs it, stopped when the worker ends. */
export const test = base.extend<object, { lab: LabProcess }>({
  lab: [
    async ({}, use) => {
      const { child, url, output } = await startBrowserMode();
      const parsed = new URL(url);
      await use({ url, origin: parsed.origin, token: parsed.searchParams.get('token') ?? '', output });
      child.kill('SIGTERM');
    },
    { scope: 'worker' },
  ],
});

export { expect } from '@playwright/test';
