/**
 * The shape of a typed RPC protocol: each method's params, result and, if it
 * streams, progress, as zod schemas. The engine and trainer protocols are
 * written in it; the supervisor (src/processes/workerMessages.ts) carries
 * them over a process boundary.
 */
import type { z } from 'zod';

/** One method: the schema of its params, of its result and, if it streams, of each progress report. */
export interface RpcMethod {
  readonly params: z.ZodType;
  readonly result: z.ZodType;
  readonly progress?: z.ZodType;
}
export type RpcProtocol = Readonly<Record<string, RpcMethod>>;

export type MethodName<P extends RpcProtocol> = Extract<keyof P, string>;
export type ParamsOf<P extends RpcProtocol, M extends MethodName<P>> = z.input<P[M]['params']>;
export type ResultOf<P extends RpcProtocol, M extends MethodName<P>> = z.output<P[M]['result']>;
export type ProgressOf<P extends RpcProtocol, M extends MethodName<P>> = P[M]['progress'] extends z.ZodType ? z.output<P[M]['progress']> : never;
