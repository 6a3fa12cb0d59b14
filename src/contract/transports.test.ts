import { WebSocket } from 'ws';
import { createHttpTransport } from '../../renderer/src/api/httpTransport';
import type { WebSocketConstructor } from '../../renderer/src/api/httpTransport';
import { createLabCore } from '../lab/labCore';
import { startLabServer } from '../surfaces/browser/server';
import { forwardLabEvents, registerLabIpc } from '../surfaces/electronMain/ipcBridge';
import { createSenderTrust } from '../surfaces/electronMain/senderTrust';
import { createIpcHarness } from '../surfaces/electronMain/testing/ipcHarness';
import { createIpcTransport } from '../surfaces/preload/ipcTransport';
import { createLabApi } from './client';
import { defineContractSuite, REPO_ASSETS_DIR } from './testing/contractSuite';

// IPC: the real preload transport and the real main bridge, joined by the
// harness that stands in for Electron's ipcMain/ipcRenderer.
defineContractSuite('IPC (preload ↔ main, simulated ipc)', async ({ runsDir }) => {
  const core = createLabCore({ assetsDir: REPO_ASSETS_DIR, version: '0.0.0-test', mode: 'electron', runsDir });
  const harness = createIpcHarness();
  const trust = createSenderTrust();
  trust.add(1);
  const unregister = registerLabIpc(harness.ipcMain, core.handlers, (info) => trust.isTrusted(info));
  const stopEvents = forwardLabEvents(core.events, () => trust.ids(), harness.send);
  const renderer = harness.rendererFor({ webContentsId: 1, url: 'app://gatelab/index.html', isMainFrame: true });
  const transport = createIpcTransport(renderer);
  return {
    api: createLabApi(transport),
    rawInvoke: (channel, params) => transport.invoke(channel as never, params),
    eventsReady: async () => {},
    close: async () => {
      stopEvents();
      unregister();
      await core.close();
    },
  };
});

// HTTP + WebSocket: the real server on 127.0.0.1 and the renderer's real transport.
defineContractSuite('HTTP + WebSocket (browser mode)', async ({ runsDir }) => {
  const core = createLabCore({ assetsDir: REPO_ASSETS_DIR, version: '0.0.0-test', mode: 'browser', runsDir });
  const server = await startLabServer({ handlers: core.handlers, events: core.events, rendererDir: null });
  const transport = createHttpTransport({
    origin: server.origin,
    token: server.token,
    WebSocket: WebSocket as unknown as WebSocketConstructor,
  });
  return {
    api: createLabApi(transport),
    rawInvoke: (channel, params) => transport.invoke(channel as never, params),
    eventsReady: () => transport.eventsReady(),
    close: async () => {
      transport.close();
      await server.close();
      await core.close();
    },
  };
});
