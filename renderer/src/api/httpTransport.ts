import type { LabEnvelope, LabEventName, LabMethodName, LabTransport } from '../../../src/contract';

/** The browser's WebSocket constructor, or a compatible one (the `ws` package in tests). */
export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface WebSocketLike {
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: unknown) => void) | null;
  onerror: ((event: unknown) => void) | null;
  close(): void;
}

export interface HttpTransportOptions {
  /** The lab server's origin, e.g. http://127.0.0.1:5173 (the page's own origin in the browser). */
  readonly origin: string;
  readonly token: string;
  readonly WebSocket: WebSocketConstructor;
  readonly fetch?: typeof fetch;
  /** First reconnect delay; doubles up to 10 s. */
  readonly reconnectDelayMs?: number;
}

export interface HttpTransport extends LabTransport {
  /** Resolves when the event socket is open (tests wait on it before expecting events). */
  eventsReady(): Promise<void>;
  close(): void;
}

/**
 * Browser mode's LabTransport: a method call is `POST /api/<channel>` with
 * the launch token as a Bearer header; events arrive on one shared WebSocket
 * (/api/events, the token in its query since a browser cannot set headers on
 * a WebSocket), reopened with backoff if it drops.
 */
export function createHttpTransport(options: HttpTransportOptions): HttpTransport {
  const doFetch = options.fetch ?? fetch.bind(globalThis);
  const listeners = new Map<LabEventName, Set<(payload: unknown) => void>>();
  let socket: WebSocketLike | null = null;
  let closed = false;
  let delay = options.reconnectDelayMs ?? 500;
  let isOpen = false;
  const openWaiters: (() => void)[] = [];

  function openSocket(): void {
    if (closed || socket !== null) return;
    const url = new URL('/api/events', options.origin);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    url.searchParams.set('token', options.token);
    const ws = new options.WebSocket(url.toString());
    socket = ws;
    ws.onopen = () => {
      delay = options.reconnectDelayMs ?? 500;
      isOpen = true;
      for (const resolve of openWaiters.splice(0)) resolve();
    };
    ws.onmessage = (event) => {
      if (typeof event.data !== 'string') return;
      let frame: unknown;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return;
      }
      if (typeof frame !== 'object' || frame === null) return;
      const { event: name, payload } = frame as { event?: unknown; payload?: unknown };
      for (const listener of listeners.get(name as LabEventName) ?? []) listener(payload);
    };
    ws.onerror = () => {};
    ws.onclose = () => {
      socket = null;
      isOpen = false;
      if (closed) return;
      setTimeout(openSocket, delay);
      delay = Math.min(delay * 2, 10_000);
    };
  }

  return {
    async invoke(channel: LabMethodName, params: unknown): Promise<LabEnvelope> {
      const response = await doFetch(new URL(`/api/${channel}`, options.origin), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${options.token}` },
        body: JSON.stringify(params),
      });
      // Errors come back as envelopes with a 4xx/5xx status; the client checks the envelope.
      try {
        return (await response.json()) as LabEnvelope;
      } catch {
        return { ok: false, error: { code: 'internal', message: `HTTP ${response.status} without a LabApi reply` } };
      }
    },
    subscribe(event, listener) {
      let set = listeners.get(event);
      if (set === undefined) listeners.set(event, (set = new Set()));
      set.add(listener);
      openSocket();
      return () => {
        set.delete(listener);
      };
    },
    eventsReady() {
      openSocket();
      return isOpen ? Promise.resolve() : new Promise<void>((resolve) => openWaiters.push(resolve));
    },
    close() {
      closed = true;
      socket?.close();
      socket = null;
    },
  };
}
