import { isLabEventChannel, isLabMethodChannel } from '../../contract/channelLists';
import type { LabTransport } from '../../contract/api';
import type { LabEnvelope } from '../../contract/errors';

/** The part of Electron's ipcRenderer the transport uses (the test harness implements it too). */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

/**
 * What the preload exposes as `window.gatelab`: invoke a LabApi method,
 * subscribe to a lab event — and nothing else. Only allow-listed channels
 * pass, and the IpcRendererEvent (which holds `sender`) never reaches the
 * page: listeners get the payload alone.
 */
export function createIpcTransport(ipcRenderer: IpcRendererLike): LabTransport {
  return {
    async invoke(channel, params) {
      if (!isLabMethodChannel(channel)) {
        return unknownMethod(`unknown LabApi method: ${JSON.stringify(String(channel).slice(0, 80))}`);
      }
      return (await ipcRenderer.invoke(channel, params)) as LabEnvelope;
    },
    subscribe(event, listener) {
      if (!isLabEventChannel(event)) throw new Error(`not a LabApi event: ${String(event).slice(0, 80)}`);
      const forward = (_event: unknown, payload: unknown): void => listener(payload);
      ipcRenderer.on(event, forward);
      return () => {
        ipcRenderer.removeListener(event, forward);
      };
    },
  };
}

function unknownMethod(message: string): LabEnvelope {
  return { ok: false, error: { code: 'not-found', message } };
}
