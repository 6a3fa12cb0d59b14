import type { EventPayload, LabEventName, LabMethodName, MethodParams, MethodResult, ParsedParams } from './channels';
import type { LabEnvelope } from './errors';

type DomainOf<M extends string> = M extends `${infer D}.${string}` ? D : never;
type MethodOf<M extends string, D extends string> = M extends `${D}.${infer Name}` ? Name : never;

/** Methods whose params object may be empty can be called without an argument. */
type CallArgs<M extends LabMethodName> = Record<never, never> extends MethodParams<M> ? [params?: MethodParams<M>] : [params: MethodParams<M>];

/**
 * What the renderer programs against: `lab.runs.openReference({ id })`.
 * Every call resolves with the validated result or rejects with a LabError.
 */
export type LabApi = {
  readonly [D in DomainOf<LabMethodName>]: {
    readonly [M in LabMethodName as MethodOf<M, D>]: (...args: CallArgs<M>) => Promise<MethodResult<M>>;
  };
} & {
  /** Subscribe to a lab event; returns the unsubscribe function. */
  on<E extends LabEventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
};

/**
 * The wire both transports implement. Over IPC this is what the preload
 * exposes as `window.gatelab`; in browser mode the HTTP+WebSocket transport.
 * Payloads are untyped here on purpose: the client validates them.
 */
export interface LabTransport {
  invoke(channel: LabMethodName, params: unknown): Promise<LabEnvelope>;
  subscribe(event: LabEventName, listener: (payload: unknown) => void): () => void;
}

/** Where a call came from, for logging and per-transport policy. */
export interface CallContext {
  readonly transport: 'ipc' | 'http';
}

/** The core implements one handler per method; a missing one does not compile. */
export type LabHandlers = {
  readonly [M in LabMethodName]: (params: ParsedParams<M>, context: CallContext) => Promise<MethodResult<M>>;
};
