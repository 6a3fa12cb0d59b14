import type { z } from 'zod';

/**
 * One LabApi method: the schema its params must pass at the boundary (main's
 * IPC handler, the HTTP server) and the schema of its result (checked by the
 * core before sending and by the client on receipt).
 */
export interface MethodSpec {
  readonly summary: string;
  readonly params: z.ZodType;
  readonly result: z.ZodType;
}

/** A domain's methods, keyed `<domain>.<method>` — the key is the channel name. */
export type MethodTable = Readonly<Record<`${string}.${string}`, MethodSpec>>;

/** A domain's events, keyed `<domain>.<event>`, valued by the payload schema. */
export type EventTable = Readonly<Record<`${string}.${string}`, z.ZodType>>;
