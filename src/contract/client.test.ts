import { describe, expect, test } from 'vitest';
import type { LabTransport } from './api';
import { createLabApi } from './client';
import { LabError } from './errors';

function transportReplying(reply: unknown, events: ((emit: (event: string, payload: unknown) => void) => void) | null = null) {
  const listeners = new Map<string, (payload: unknown) => void>();
  const transport: LabTransport = {
    invoke: async () => reply as never,
    subscribe: (event, listener) => {
      listeners.set(event, listener);
      return () => listeners.delete(event);
    },
  };
  return { transport, emit: (event: string, payload: unknown) => listeners.get(event)?.(payload), events };
}

describe('the LabApi client fails closed', () => {
  test('a result that breaks the contract is an internal LabError, not data', async () => {
    const { transport } = transportReplying({ ok: true, result: { name: 'NotGateLab' } });
    await expect(createLabApi(transport).app.info()).rejects.toMatchObject({ name: 'LabError', code: 'internal' });
  });

  test('a reply that is not an envelope is an internal LabError', async () => {
    const { transport } = transportReplying('<html>proxy error</html>');
    await expect(createLabApi(transport).app.info()).rejects.toBeInstanceOf(LabError);
  });

  test('an error envelope becomes a LabError with its code and details', async () => {
    const { transport } = transportReplying({
      ok: false,
      error: { code: 'invalid-csv', message: 'bad', details: { file: 'c.csv', line: 3, column: 2, columnName: 'accept', problem: 'p' } },
    });
    await expect(createLabApi(transport).runs.openFiles({ files: [{ name: 'c.csv', text: '' }] })).rejects.toMatchObject({
      code: 'invalid-csv',
      details: { line: 3 },
    });
  });

  test('a transport failure is a LabError', async () => {
    const transport: LabTransport = { invoke: () => Promise.reject(new Error('socket hang up')), subscribe: () => () => {} };
    await expect(createLabApi(transport).app.info()).rejects.toMatchObject({ code: 'internal', message: expect.stringContaining('socket hang up') });
  });

  test('an event whose payload breaks its schema is dropped', () => {
    const { transport, emit } = transportReplying(null);
    const seen: unknown[] = [];
    createLabApi(transport).on('lab.log', (entry) => seen.push(entry));
    emit('lab.log', { level: 'shout', message: 'x', at: 'now' });
    emit('lab.log', { level: 'info', message: 'ok', at: new Date(0).toISOString() });
    expect(seen).toEqual([{ level: 'info', message: 'ok', at: '1970-01-01T00:00:00.000Z' }]);
  });
});
