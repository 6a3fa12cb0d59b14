import { LAB_METHOD_CHANNELS } from './channelLists';
import { labMethods } from './channels';
import { labEvents } from './events';
import type { LabEventName, LabMethodName } from './channels';
import type { LabApi, LabTransport } from './api';
import { LabEnvelope, LabError } from './errors';

/**
 * Builds the typed LabApi on top of a transport. The same code runs over IPC
 * and over HTTP, so a result or event that does not match its schema is
 * rejected the same way on both (fail closed: a LabError, never bad data).
 */
export function createLabApi(transport: LabTransport): LabApi {
  const domains: Record<string, Record<string, (params?: unknown) => Promise<unknown>>> = {};
  for (const channel of LAB_METHOD_CHANNELS) {
    const [domain, method] = splitChannel(channel);
    const table = (domains[domain] ??= {});
    table[method] = (params?: unknown) => call(transport, channel, params ?? {});
  }
  const on = (event: LabEventName, listener: (payload: never) => void): (() => void) =>
    transport.subscribe(event, (payload) => {
      const parsed = labEvents[event].safeParse(payload);
      // An event that fails its schema is dropped, not passed on half-valid.
      if (parsed.success) (listener as (payload: unknown) => void)(parsed.data);
    });
  return { ...domains, on } as unknown as LabApi;
}

async function call(transport: LabTransport, channel: LabMethodName, params: unknown): Promise<unknown> {
  let raw: unknown;
  try {
    raw = await transport.invoke(channel, params);
  } catch (error) {
    if (error instanceof LabError) throw error;
    throw new LabError('internal', `${channel}: transport failed: ${messageOf(error)}`);
  }
  const envelope = LabEnvelope.safeParse(raw);
  if (!envelope.success) throw new LabError('internal', `${channel}: malformed reply from the lab`);
  if (!envelope.data.ok) {
    const { code, message, details } = envelope.data.error;
    throw new LabError(code, message, details);
  }
  const result = labMethods[channel].result.safeParse(envelope.data.result);
  if (!result.success) throw new LabError('internal', `${channel}: the lab's reply does not match the contract`);
  return result.data;
}

function splitChannel(channel: LabMethodName): [string, string] {
  const dot = channel.indexOf('.');
  return [channel.slice(0, dot), channel.slice(dot + 1)];
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
