import { createLabApi } from '../../../src/contract/client';
import type { LabApi, LabTransport } from '../../../src/contract/api';
import { createHttpTransport } from './httpTransport';
import type { WebSocketConstructor } from './httpTransport';

declare global {
  interface Window {
    /** Exposed by the Electron preload; absent in browser mode. */
    readonly gatelab?: LabTransport;
  }
}

export type TransportKind = 'ipc' | 'http';

/** Which transport this page will use, and why not, when it has none. */
export function chooseTransport(win: {
  readonly gatelab?: LabTransport | undefined;
  readonly location: Pick<Location, 'search' | 'origin'>;
  readonly WebSocket: unknown;
}): { kind: TransportKind; transport: LabTransport } | { kind: 'none'; reason: string } {
  if (win.gatelab !== undefined) return { kind: 'ipc', transport: win.gatelab };
  const token = new URLSearchParams(win.location.search).get('token');
  if (token === null || token === '') {
    return { kind: 'none', reason: 'This page was opened without its launch token. Open the exact URL GateLab printed in the terminal.' };
  }
  return {
    kind: 'http',
    transport: createHttpTransport({
      origin: win.location.origin,
      token,
      WebSocket: win.WebSocket as unknown as WebSocketConstructor,
    }),
  };
}

let lab: LabApi | null = null;
let transportKind: TransportKind | 'none' = 'none';
let unavailableReason = '';

/** The page's one LabApi: `window.gatelab` (IPC) in Electron, else HTTP + WebSocket. */
export function getLab(): LabApi | null {
  if (lab === null && transportKind === 'none' && unavailableReason === '') {
    const choice = chooseTransport({ gatelab: window.gatelab, location: window.location, WebSocket: window.WebSocket });
    if (choice.kind === 'none') unavailableReason = choice.reason;
    else {
      transportKind = choice.kind;
      lab = createLabApi(choice.transport);
    }
  }
  return lab;
}

export function labUnavailableReason(): string {
  getLab();
  return unavailableReason;
}
