import type { IpcRendererLike } from '../../preload/ipcTransport';
import type { IpcMainLike } from '../ipcBridge';
import type { IpcSenderInfo } from '../security';

type MainListener = (event: IpcSenderInfo, ...args: unknown[]) => Promise<unknown>;
type RendererListener = (event: unknown, ...args: unknown[]) => void;

/** Where a simulated renderer's calls come from. */
export interface SimulatedFrame {
  readonly webContentsId: number;
  readonly url: string;
  readonly isMainFrame: boolean;
}

/**
 * A stand-in for Electron's IPC where no Electron binary exists (test double,
 * tests only). It keeps the properties the bridge relies on: one handler per
 * channel (a second `handle` throws, as Electron's does), arguments and
 * results pass through structured clone (so functions, class instances and
 * prototypes do not survive, as over real IPC), a handler that throws
 * rejects the invoke with Electron's wording, and every call carries the
 * sender's webContents id and frame.
 */
export function createIpcHarness() {
  const handlers = new Map<string, MainListener>();
  const renderers = new Map<number, Map<string, Set<RendererListener>>>();

  const ipcMain: IpcMainLike = {
    handle(channel, listener) {
      if (handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
      handlers.set(channel, listener);
    },
    removeHandler(channel) {
      handlers.delete(channel);
    },
  };

  function rendererFor(frame: SimulatedFrame): IpcRendererLike {
    const channels = renderers.get(frame.webContentsId) ?? new Map<string, Set<RendererListener>>();
    renderers.set(frame.webContentsId, channels);
    const event: IpcSenderInfo = {
      sender: { id: frame.webContentsId },
      senderFrame: { url: frame.url, parent: frame.isMainFrame ? null : { url: 'app://gatelab/index.html' } },
    };
    return {
      async invoke(channel, ...args) {
        const handler = handlers.get(channel);
        if (handler === undefined) throw new Error(`Error invoking remote method '${channel}': No handler registered for '${channel}'`);
        try {
          return structuredClone(await handler(event, ...structuredClone(args)));
        } catch (error) {
          // Electron's IPC hands the renderer only the message, never the cause; the harness does the same.
          // eslint-disable-next-line preserve-caught-error
          throw new Error(`Error invoking remote method '${channel}': ${String(error)}`);
        }
      },
      on(channel, listener) {
        const set = channels.get(channel) ?? new Set<RendererListener>();
        channels.set(channel, set);
        set.add(listener);
        return this;
      },
      removeListener(channel, listener) {
        channels.get(channel)?.delete(listener);
        return this;
      },
    };
  }

  /** main → renderer, like `webContents.send`: only that webContents' listeners get it. */
  function send(webContentsId: number, channel: string, ...args: unknown[]): void {
    const ipcEvent = { senderId: 0 };
    for (const listener of renderers.get(webContentsId)?.get(channel) ?? []) {
      listener(ipcEvent, ...structuredClone(args));
    }
  }

  return { ipcMain, rendererFor, send, registeredChannels: () => [...handlers.keys()] };
}
