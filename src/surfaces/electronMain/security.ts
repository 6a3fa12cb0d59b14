/**
 * The shell's security policy as pure functions, so each rule is unit-tested
 * without an Electron binary; main.ts only wires them to Electron's hooks.
 * (Electron's security checklist; Actual's security.ts does the same.)
 */

/** The renderer is served from app://gatelab/ — never file:// (checklist item 18). */
export const APP_SCHEME = 'app';
export const APP_HOST = 'gatelab';
export const APP_ENTRY_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/** Privileges of the app:// scheme: a standard, secure origin, nothing more. */
export const APP_SCHEME_PRIVILEGES = {
  standard: true,
  secure: true,
  supportFetchAPI: true,
  corsEnabled: false,
  bypassCSP: false,
  allowServiceWorkers: false,
  stream: false,
} as const;

/**
 * True iff `url` is a page of our own app:// origin. (WHATWG URL gives a
 * custom scheme the origin "null", so protocol and host are compared.)
 */
export function isAppUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST && parsed.username === '' && parsed.password === '';
  } catch {
    return false;
  }
}

/** `will-navigate` / `will-redirect`: the window never leaves the app's origin. */
export function isNavigationAllowed(url: string): boolean {
  return isAppUrl(url);
}

/** `setWindowOpenHandler`: the renderer never opens windows. */
export function windowOpenDecision(): { action: 'deny' } {
  return { action: 'deny' };
}

/**
 * Permission requests (camera, notifications, clipboard, …): all denied; the
 * lab needs none. Takes the name so the log and the tests can say which.
 */
export function permissionDecision(_permission: string): boolean {
  return false;
}

/** `will-attach-webview`: no <webview> tags. */
export function isWebviewAllowed(): boolean {
  return false;
}

/** What an IPC handler knows about who called it (a subset of IpcMainInvokeEvent). */
export interface IpcSenderInfo {
  readonly sender: { readonly id: number };
  readonly senderFrame: { readonly url: string; readonly parent: unknown } | null;
}

/**
 * An IPC call is trusted only from the main frame of a window main created,
 * showing our own app:// page (GitHub Desktop's ipc-main.ts drops the rest).
 * A subframe, a navigated-away page or a stranger's webContents is refused.
 */
export function isTrustedSender(info: IpcSenderInfo, trustedWebContentsIds: ReadonlySet<number>): boolean {
  const frame = info.senderFrame;
  if (frame === null) return false;
  if (!trustedWebContentsIds.has(info.sender.id)) return false;
  if (frame.parent !== null) return false;
  return isAppUrl(frame.url);
}
