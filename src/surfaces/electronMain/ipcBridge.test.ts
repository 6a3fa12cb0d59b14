import { describe, expect, test } from 'vitest';
import { LAB_METHOD_CHANNELS } from '../../contract';
import type { LabHandlers } from '../../contract';
import { REPO_ASSETS_DIR } from '../../contract/testing/contractSuite';
import { createLabCore } from '../../lab/labCore';
import { createIpcTransport } from '../preload/ipcTransport';
import { forwardLabEvents, registerLabIpc } from './ipcBridge';
import { createSenderTrust } from './senderTrust';
import { createIpcHarness } from './testing/ipcHarness';

function setup() {
  const core = createLabCore({ assetsDir: REPO_ASSETS_DIR, version: '0.0.0-test', mode: 'electron' });
  let coreCalls = 0;
  const counted = Object.fromEntries(
    Object.entries(core.handlers).map(([channel, handler]) => [
      channel,
      (...args: Parameters<typeof handler>) => {
        coreCalls++;
        return (handler as (...a: unknown[]) => Promise<unknown>)(...args);
      },
    ]),
  ) as unknown as LabHandlers;
  const harness = createIpcHarness();
  const trust = createSenderTrust();
  trust.add(1);
  const refused: string[] = [];
  registerLabIpc(
    harness.ipcMain,
    counted,
    (info) => trust.isTrusted(info),
    (channel) => refused.push(channel),
  );
  forwardLabEvents(core.events, () => trust.ids(), harness.send);
  return { core, harness, trust, refused, coreCalls: () => coreCalls };
}

describe('IPC bridge', () => {
  test('main registers a handler for exactly the allow-listed channels', () => {
    const { harness } = setup();
    expect(harness.registeredChannels().sort()).toEqual([...LAB_METHOD_CHANNELS].sort());
  });

  test('calls from untrusted senders and frames are refused before the core', async () => {
    const { harness, refused, coreCalls } = setup();
    const strangers = [
      { webContentsId: 2, url: 'app://gatelab/index.html', isMainFrame: true }, // a window main did not create
      { webContentsId: 1, url: 'app://gatelab/index.html', isMainFrame: false }, // a subframe of ours
      { webContentsId: 1, url: 'https://evil.example/', isMainFrame: true }, // our window, navigated away
    ];
    for (const frame of strangers) {
      const envelope = await createIpcTransport(harness.rendererFor(frame)).invoke('app.info', {});
      expect(envelope, JSON.stringify(frame)).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    }
    expect(refused).toEqual(['app.info', 'app.info', 'app.info']);
    expect(coreCalls()).toBe(0);
    const ours = createIpcTransport(harness.rendererFor({ webContentsId: 1, url: 'app://gatelab/index.html', isMainFrame: true }));
    expect(await ours.invoke('app.info', {})).toMatchObject({ ok: true });
    expect(coreCalls()).toBe(1);
  });

  test('events go to trusted windows only, without the IPC event object', async () => {
    const { core, harness } = setup();
    const ours: unknown[][] = [];
    const theirs: unknown[][] = [];
    harness.rendererFor({ webContentsId: 1, url: 'app://gatelab/index.html', isMainFrame: true }).on('lab.log', (...args) => ours.push(args));
    harness.rendererFor({ webContentsId: 2, url: 'app://gatelab/index.html', isMainFrame: true }).on('lab.log', (...args) => theirs.push(args));
    const transport = createIpcTransport(harness.rendererFor({ webContentsId: 1, url: 'app://gatelab/index.html', isMainFrame: true }));
    const payloads: unknown[][] = [];
    transport.subscribe('lab.log', (...args) => payloads.push(args));
    core.events.log('info', 'hello');
    expect(ours).toHaveLength(1);
    expect(theirs).toHaveLength(0);
    expect(payloads).toEqual([[expect.objectContaining({ level: 'info', message: 'hello' })]]);
  });

  test('the preload refuses channels outside the allow-list without calling main', async () => {
    const { harness } = setup();
    const transport = createIpcTransport(harness.rendererFor({ webContentsId: 1, url: 'app://gatelab/index.html', isMainFrame: true }));
    const envelope = await transport.invoke('shell.openExternal' as never, { url: 'file:///' });
    expect(envelope).toMatchObject({ ok: false, error: { code: 'not-found' } });
    expect(() => transport.subscribe('secret.event' as never, () => {})).toThrow(/not a LabApi event/);
  });
});
