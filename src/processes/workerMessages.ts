/**
 * The wire format between the supervisor and a worker process, and the shape
 * of a typed worker protocol (docs/internals.md, "The embedded engine worker"):
 *
 *   parent → worker  { id, method, params }
 *   worker → parent  { id, result } | { id, error: { code, message } }
 *                    | { id, progress }        (zero or more before the answer)
 *                    | { ready: true, pid }    (once, when it listens)
 *
 * Both sides validate with zod: a worker is another process, so its
 * messages are untrusted input like any other boundary.
 */
import { z } from 'zod';

export const RequestMessageSchema = z.object({
  id: z.number().int().nonnegative(),
  method: z.string().min(1),
  params: z.unknown(),
});
export type RequestMessage = z.infer<typeof RequestMessageSchema>;

export const ErrorBodySchema = z.object({ code: z.string(), message: z.string() });
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

export const WorkerMessageSchema = z.union([
  z.object({ id: z.number().int(), result: z.unknown() }).strict(),
  z.object({ id: z.number().int(), error: ErrorBodySchema }).strict(),
  z.object({ id: z.number().int(), progress: z.unknown() }).strict(),
  z.object({ ready: z.literal(true), pid: z.number().int() }).strict(),
]);
export type WorkerMessage = z.infer<typeof WorkerMessageSchema>;

export type { MethodName, ParamsOf, ProgressOf, ResultOf, RpcMethod, RpcProtocol } from '../core/protocols/rpcProtocol';

/**
 * The method every worker answers (see serveWorker): finish, answer, exit.
 * Not part of any protocol object so that protocols stay about their domain.
 */
export const SHUTDOWN_METHOD = '__shutdown';

/** Error codes the supervisor itself produces; workers add their own. */
export type SupervisorErrorCode = 'timeout' | 'crashed' | 'not_running' | 'bad_response' | 'start_failed';

/** A call that failed: `code` says whether the worker answered with an error or the supervisor gave up. */
export class WorkerCallError extends Error {
  override readonly name = 'WorkerCallError';
  constructor(
    readonly code: SupervisorErrorCode | (string & {}),
    message: string,
  ) {
    super(message);
  }
}
