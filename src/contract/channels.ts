import type { z } from 'zod';
import { appMethods } from './app';
import { labEvents } from './events';
import { labLiveMethods } from './labLive';
import { labRunsMethods } from './labRuns';
import { runsMethods } from './runs';
import { workersMethods } from './workers';
import { isLabEventChannel, isLabMethodChannel } from './channelLists';

/**
 * The whole LabApi: every method of every domain. To add a domain, write
 * `<domain>.ts` beside this file with its `…Methods` table (and events in
 * events.ts), spread it here, and list its channels in channelLists.ts. The type-level
 * test (channels.test-d.ts) fails until the list and the table agree, and
 * the core (`LabHandlers`) fails to compile until every method has a handler.
 */
export const labMethods = {
  ...appMethods,
  ...runsMethods,
  ...labRunsMethods,
  ...labLiveMethods,
  ...workersMethods,
} as const;

export type LabMethods = typeof labMethods;
export type LabMethodName = keyof LabMethods;
export type LabEvents = typeof labEvents;
export type LabEventName = keyof LabEvents;

export type MethodParams<M extends LabMethodName> = z.input<LabMethods[M]['params']>;
export type ParsedParams<M extends LabMethodName> = z.output<LabMethods[M]['params']>;
export type MethodResult<M extends LabMethodName> = z.output<LabMethods[M]['result']>;
export type EventPayload<E extends LabEventName> = z.output<LabEvents[E]>;

/**
 * True iff the tuple `List` names exactly the keys of `Table` — no channel
 * missing, none extra. Used by the type-level test.
 */
export type ExactChannels<List extends readonly string[], Table> = [List[number]] extends [keyof Table]
  ? [keyof Table] extends [List[number]]
    ? true
    : { missing: Exclude<keyof Table, List[number]> }
  : { extra: Exclude<List[number], keyof Table> };

export function isLabMethodName(value: unknown): value is LabMethodName {
  return isLabMethodChannel(value);
}

export function isLabEventName(value: unknown): value is LabEventName {
  return isLabEventChannel(value);
}
