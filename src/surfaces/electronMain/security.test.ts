import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { RENDERER_CSP } from '../browser/contentSecurityPolicy';
import { createAppProtocolHandler } from './appProtocol';
import {
  APP_ENTRY_URL,
  APP_SCHEME_PRIVILEGES,
  isAppUrl,
  isNavigationAllowed,
  isTrustedSender,
  isWebviewAllowed,
  permissionDecision,
  windowOpenDecision,
} from './security';
import { createMainWindowOptions } from './windowOptions';

describe('main window options', () => {
  const options = createMainWindowOptions('/app/dist/preload/preload.cjs', null);
  const prefs = options.webPreferences ?? {};

  test('context isolation and the sandbox are on; Node is off everywhere', () => {
    expect(prefs.contextIsolation).toBe(true);
    expect(prefs.sandbox).toBe(true);
    expect(prefs.nodeIntegration).toBe(false);
    expect(prefs.nodeIntegrationInWorker).toBe(false);
    expect(prefs.nodeIntegrationInSubFrames).toBe(false);
  });

  test('web security stays on and nothing experimental or insecure is allowed', () => {
    expect(prefs.webSecurity).toBe(true);
    expect(prefs.allowRunningInsecureContent).toBe(false);
    expect(prefs.webviewTag).toBe(false);
    expect(prefs.experimentalFeatures).toBe(false);
    expect(prefs.navigateOnDragDrop).toBe(false);
  });

  test('the preload is ours and the window waits until it is ready to show', () => {
    expect(prefs.preload).toBe('/app/dist/preload/preload.cjs');
    expect(options.show).toBe(false);
  });
});

describe('navigation, windows, permissions', () => {
  test('the app page is served from app://gatelab, not file://', () => {
    expect(APP_ENTRY_URL).toBe('app://gatelab/index.html');
    expect(isAppUrl(APP_ENTRY_URL)).toBe(true);
    expect(APP_SCHEME_PRIVILEGES).toMatchObject({ standard: true, secure: true, bypassCSP: false, allowServiceWorkers: false });
  });

  test('navigation away from the app is denied', () => {
    expect(isNavigationAllowed('app://gatelab/index.html')).toBe(true);
    for (const url of [
      'https://example.com/',
      'http://127.0.0.1:8080/',
      'file:///etc/passwd',
      'app://other/index.html',
      'app://user:pw@gatelab/index.html',
      'javascript:alert(1)',
      'data:text/html,<script>1</script>',
      'not a url',
    ]) {
      expect(isNavigationAllowed(url), url).toBe(false);
    }
  });

  test('new windows, webviews and every permission are denied', () => {
    expect(windowOpenDecision()).toEqual({ action: 'deny' });
    expect(isWebviewAllowed()).toBe(false);
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'fileSystem']) {
      expect(permissionDecision(permission), permission).toBe(false);
    }
  });
});

describe('IPC sender trust', () => {
  const trusted = new Set([7]);
  const frame = (url: string, parent: unknown = null) => ({ url, parent });

  test('our window main frame on our page is trusted', () => {
    expect(isTrustedSender({ sender: { id: 7 }, senderFrame: frame('app://gatelab/index.html') }, trusted)).toBe(true);
  });

  test('a webContents main did not create is refused', () => {
    expect(isTrustedSender({ sender: { id: 8 }, senderFrame: frame('app://gatelab/index.html') }, trusted)).toBe(false);
  });

  test('a subframe, a foreign page or a missing frame is refused', () => {
    expect(isTrustedSender({ sender: { id: 7 }, senderFrame: frame('app://gatelab/x.html', {}) }, trusted)).toBe(false);
    expect(isTrustedSender({ sender: { id: 7 }, senderFrame: frame('https://evil.example/') }, trusted)).toBe(false);
    expect(isTrustedSender({ sender: { id: 7 }, senderFrame: frame('file:///tmp/x.html') }, trusted)).toBe(false);
    expect(isTrustedSender({ sender: { id: 7 }, senderFrame: null }, trusted)).toBe(false);
  });
});

describe('app:// protocol handler', () => {
  const base = mkdtempSync(join(tmpdir(), 'gatelab-protocol-test-'));
  const root = join(base, 'renderer');
  mkdirSync(join(root, 'assets'), { recursive: true });
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>GateLab</title>');
  writeFileSync(join(root, 'assets', 'app.js'), 'export {}');
  writeFileSync(join(base, 'secret.txt'), 'outside');
  const handle = createAppProtocolHandler(root);

  test('serves the renderer with the CSP', async () => {
    const page = await handle(new Request('app://gatelab/index.html'));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(RENDERER_CSP);
    expect(page.headers.get('content-type')).toContain('text/html');
    const script = await handle(new Request('app://gatelab/assets/app.js'));
    expect(script.headers.get('content-type')).toContain('javascript');
  });

  test('refuses other hosts, traversal and missing files', async () => {
    for (const url of [
      'app://other/index.html',
      'app://gatelab/../secret.txt',
      'app://gatelab/assets/..%2f..%2fsecret.txt',
      'app://gatelab/%2e%2e/secret.txt',
      'app://gatelab/nope.js',
    ]) {
      const res = await handle(new Request(url));
      expect(res.status, url).toBe(404);
      expect(await res.text()).not.toContain('outside');
    }
  });

  test('refuses anything but GET', async () => {
    const res = await handle(new Request('app://gatelab/index.html', { method: 'POST', body: 'x' }));
    expect(res.status).toBe(405);
  });
});
