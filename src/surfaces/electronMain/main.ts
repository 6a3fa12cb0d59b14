// The Electron shell: one window on app://gatelab, the lab core behind IPC,
// and Electron's security checklist applied through the pure policies in
// security.ts. Built to dist/main/main.js (ESM).
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, ipcMain, nativeTheme, Notification, protocol, session, utilityProcess, webContents } from 'electron';
import { createLabCore } from '../../lab/labCore';
import { registerUtilityProcessFork } from '../../processes/utilityProcessHost';
import type { UtilityProcessLike } from '../../processes/utilityProcessHost';
import { createAppProtocolHandler } from './appProtocol';
import { notifyAwaitingCandidates } from './awaitingNotifier';
import { forwardLabEvents, registerLabIpc } from './ipcBridge';
import { APP_ENTRY_URL, APP_SCHEME, APP_SCHEME_PRIVILEGES, isNavigationAllowed, isWebviewAllowed, permissionDecision, windowOpenDecision } from './security';
import { createSenderTrust } from './senderTrust';
import { createMainWindowOptions } from './windowOptions';

// dist/main/main.js → the app root (the repository, or app.asar when packaged).
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const rendererDir = join(root, 'dist', 'renderer');
const preloadPath = join(root, 'dist', 'preload', 'preload.cjs');
const iconPath = join(root, 'assets', 'icons', 'icon.png');

// Must precede `ready`: app:// is a standard, secure origin (not file://).
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: APP_SCHEME_PRIVILEGES }]);
app.enableSandbox();

const trust = createSenderTrust();

// Every webContents, including any a bug might create, gets the same policy.
app.on('web-contents-created', (_event, contents) => {
  contents.on('will-navigate', (event, url) => {
    if (!isNavigationAllowed(url)) {
      event.preventDefault();
      console.warn(`GateLab: blocked navigation to ${url}`);
    }
  });
  contents.on('will-redirect', (event, url) => {
    if (!isNavigationAllowed(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => {
    if (!isWebviewAllowed()) event.preventDefault();
  });
  contents.setWindowOpenHandler(({ url }) => {
    console.warn(`GateLab: blocked a new window for ${url}`);
    return windowOpenDecision();
  });
});

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('window-all-closed', () => app.quit());
  await app.whenReady();

  session.defaultSession.setPermissionRequestHandler((_contents, permission, callback) => {
    callback(permissionDecision(permission));
  });
  session.defaultSession.setPermissionCheckHandler((_contents, permission) => permissionDecision(permission));
  protocol.handle(APP_SCHEME, createAppProtocolHandler(rendererDir));
  // Node workers start as Electron utility processes (the lab never imports electron).
  // Electron's d.ts types stdout/stderr as NodeJS.ReadableStream; at runtime they are
  // stream.Readable (Electron docs), which is what the lab's seam asks for.
  registerUtilityProcessFork((modulePath, args, options) => utilityProcess.fork(modulePath, args, options) as unknown as UtilityProcessLike);

  const core = createLabCore({ assetsDir: join(root, 'assets'), version: app.getVersion(), mode: 'electron' });
  // Stop a running run's workers cleanly before quitting (the journal already holds every event).
  let closed = false;
  app.on('before-quit', (event) => {
    if (closed) return;
    event.preventDefault();
    core.close().finally(() => {
      closed = true;
      app.quit();
    });
  });
  registerLabIpc(
    ipcMain,
    core.handlers,
    (info) => trust.isTrusted(info),
    (channel, info) => {
      console.warn(`GateLab: refused IPC ${channel} from webContents ${info.sender.id} (${info.senderFrame?.url ?? 'no frame'})`);
    },
  );
  forwardLabEvents(
    core.events,
    () => trust.ids(),
    (id, channel, payload) => {
      webContents.fromId(id)?.send(channel, payload);
    },
  );

  const window = new BrowserWindow(createMainWindowOptions(preloadPath, existsSync(iconPath) ? iconPath : null, nativeTheme.shouldUseDarkColors));
  const id = window.webContents.id;
  trust.add(id);
  window.webContents.once('destroyed', () => trust.remove(id));
  window.once('ready-to-show', () => window.show());
  const bringToFront = () => {
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  };
  app.on('second-instance', bringToFront);
  // A candidate that starts waiting for the person is announced by the OS too (the page shows a banner, a tab badge and the title).
  // Clicking it shows that candidate, in whichever run it waits.
  notifyAwaitingCandidates(core.events, ({ title, body, runDir, candidate }) => {
    if (!Notification.isSupported()) return;
    const notice = new Notification({ title, body });
    notice.on('click', () => {
      bringToFront();
      core.events.emit('labRuns.reviewRequested', { runDir, candidate });
    });
    notice.show();
  });
  await window.loadURL(APP_ENTRY_URL);
  console.log(`GateLab ${app.getVersion()} — Electron ${process.versions.electron}, window open on ${APP_ENTRY_URL}`);
}
