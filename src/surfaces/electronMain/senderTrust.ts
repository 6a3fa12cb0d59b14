import { isTrustedSender } from './security';
import type { IpcSenderInfo } from './security';

/** The webContents main created; only these may call the lab or get its events. */
export function createSenderTrust() {
  const ids = new Set<number>();
  return {
    add(webContentsId: number): void {
      ids.add(webContentsId);
    },
    remove(webContentsId: number): void {
      ids.delete(webContentsId);
    },
    ids(): ReadonlySet<number> {
      return ids;
    },
    isTrusted(info: IpcSenderInfo): boolean {
      return isTrustedSender(info, ids);
    },
  };
}
