import { z } from 'zod';
import { isLabMethodName, labMethods, LabError } from '../contract';
import type { CallContext, LabEnvelope, LabHandlers, LabMethodName } from '../contract';

/**
 * The one entry both transports call: validate the params against the
 * method's schema, run the core's handler, check the result against the
 * contract, and turn every outcome into an envelope. Nothing a caller sends
 * reaches a handler without passing its schema.
 */
export async function dispatchLabCall(handlers: LabHandlers, channel: unknown, rawParams: unknown, context: CallContext): Promise<LabEnvelope> {
  if (!isLabMethodName(channel)) {
    return failure(new LabError('not-found', `unknown LabApi method: ${describe(channel)}`));
  }
  const spec = labMethods[channel];
  const params = spec.params.safeParse(rawParams);
  if (!params.success) {
    return failure(new LabError('invalid-params', `${channel}: ${z.prettifyError(params.error)}`, params.error.issues));
  }
  try {
    const result = await runHandler(handlers, channel, params.data, context);
    const checked = spec.result.safeParse(result);
    if (!checked.success) {
      // Fail closed: a result the contract rejects is a bug, never sent on.
      return failure(new LabError('internal', `${channel}: result does not match the contract`));
    }
    return { ok: true, result: checked.data };
  } catch (error) {
    if (error instanceof LabError) return failure(error);
    const message = error instanceof Error ? error.message : String(error);
    return failure(new LabError('internal', `${channel} failed: ${message}`));
  }
}

function runHandler(handlers: LabHandlers, channel: LabMethodName, params: unknown, context: CallContext): Promise<unknown> {
  // The params were parsed by this very method's schema just above.
  const handler = handlers[channel] as (params: unknown, context: CallContext) => Promise<unknown>;
  return handler(params, context);
}

function failure(error: LabError): LabEnvelope {
  return { ok: false, error: error.toShape() };
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : typeof value;
}
