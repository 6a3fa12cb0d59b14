import { describe, expect, test } from 'vitest';
import type { LabTransport } from '../../../src/contract/api';
import { chooseTransport } from './labClient';

const location = (href: string) => {
  const url = new URL(href);
  return { search: url.search, origin: url.origin };
};

// Never opened by these tests: a transport connects on first use.
const WebSocket = class {};

describe('choosing the transport', () => {
  test('window.gatelab (Electron preload) wins: IPC', () => {
    const gatelab: LabTransport = { invoke: async () => ({ ok: true, result: null }), subscribe: () => () => {} };
    const choice = chooseTransport({ gatelab, WebSocket, location: location('app://gatelab/index.html') });
    expect(choice.kind).toBe('ipc');
  });

  test('no bridge but a token in the URL: HTTP + WebSocket', () => {
    expect(chooseTransport({ gatelab: undefined, WebSocket, location: location('http://127.0.0.1:4000/?token=abc') }).kind).toBe('http');
  });

  test('neither: no transport, and a reason a person can act on', () => {
    const choice = chooseTransport({ gatelab: undefined, WebSocket, location: location('http://127.0.0.1:4000/') });
    expect(choice).toEqual({ kind: 'none', reason: expect.stringContaining('URL GateLab printed') });
  });
});
