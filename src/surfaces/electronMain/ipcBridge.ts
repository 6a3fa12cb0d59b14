import { LAB_METHOD_CHANNELS, LabError } from '../../contract';
import type { LabEnvelope, LabHandlers } from '../../contract';
import type { LabEventBus } from '../../lab/eventBus';
import { dispatchLabCall } from '../../lab/requestDispatch';
import type { IpcSenderInfo } from './security';

/** The part of Electron's ipcMain the bridge uses (the test harness implements it too). */
export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcSenderInfo, ...args: unknown[]) => Promise<unknown>): void;
  removeHandler(channel: string): void;
}

/**
 * Wires every LabApi method channel to the core through one wrapper: a call
 * from a sender `isTrusted` rejects never reaches the core (it gets a
 * `forbidden` envelope); every other call goes through `dispatchLabCall`,
 * which validates its params. Returns the function that unregisters them.
 */
export function registerLabIpc(
  ipcMain: IpcMainLike,
  handlers: LabHandlers,
  isTrusted: (info: IpcSenderInfo) => boolean,
  onRefused: (channel: string, info: IpcSenderInfo) => void = () => {},
): () => void {
  for (const channel of LAB_METHOD_CHANNELS) {
    ipcMain.handle(channel, async (event, params): Promise<LabEnvelope> => {
      if (!isTrusted(event)) {
        onRefused(channel, event);
        return { ok: false, error: new LabError('forbidden', `${channel}: caller is not a GateLab window`).toShape() };
      }
      return dispatchLabCall(handlers, channel, params, { transport: 'ipc' });
    });
  }
  return () => {
    for (const channel of LAB_METHOD_CHANNELS) ipcMain.removeHandler(channel);
  };
}

/**
 * Forwards every lab event to the windows main trusts (and only those), as
 * `webContents.send(event, payload)`. Returns the unsubscribe function.
 */
export function forwardLabEvents(
  events: LabEventBus,
  trustedIds: () => ReadonlySet<number>,
  send: (webContentsId: number, channel: string, payload: unknown) => void,
): () => void {
  return events.subscribe((event, payload) => {
    for (const id of trustedIds()) send(id, event, payload);
  });
}
