import { describe, expect, test } from 'vitest';
import { browserOpener } from './openBrowser';

describe('opening the browser-mode URL', () => {
  const url = 'http://127.0.0.1:4000/?token=abc';

  test('on Linux without a display it does not try', () => {
    expect(browserOpener(url, 'linux', { PATH: '/usr/bin' })).toEqual({ reason: expect.stringContaining('DISPLAY') });
  });

  test('on Linux with a display it runs xdg-open with the URL as one argument', () => {
    const opener = browserOpener(url, 'linux', { PATH: '/nonexistent', DISPLAY: ':0' });
    expect(opener).toEqual({ reason: 'xdg-open is not installed' });
  });

  test('the URL is never put through a shell', () => {
    const nasty = 'http://127.0.0.1:4000/?token=a;rm -rf ~';
    const opener = browserOpener(nasty, 'darwin', {});
    expect(opener).toEqual({ command: 'open', args: [nasty] });
  });
});
