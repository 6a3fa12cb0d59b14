/** The protocol of the supervisor tests' echo worker (kept apart so tests can import it without starting a worker). */
import { z } from 'zod';
import type { RpcProtocol } from '../workerMessages';

export const echoProtocol = {
  echo: { params: z.object({ text: z.string() }), result: z.object({ text: z.string(), pid: z.number() }) },
  sleep: { params: z.object({ ms: z.number() }), result: z.object({ slept: z.number() }) },
  count: { params: z.object({ to: z.number().int() }), result: z.object({ done: z.literal(true) }), progress: z.object({ n: z.number() }) },
  crash: { params: z.object({ code: z.number().int() }), result: z.object({}) },
  fail: { params: z.object({}), result: z.object({}) },
  lie: { params: z.object({}), result: z.object({ text: z.string() }) },
} satisfies RpcProtocol;
