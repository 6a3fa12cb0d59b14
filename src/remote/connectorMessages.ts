/**
 * The messages between the lab's control endpoint and GateLab's connector
 * (src/remote/connector/gatelab_connector.py), the Ray actor that runs one
 * worker role on a node. One JSON object per text message; a file is one
 * binary message, its JSON header, a newline, then its bytes. The worker's
 * own RPC (workerMessages.ts) rides inside `request` / `worker` unchanged,
 * so the trainer and engine protocols are exactly those of a local worker.
 *
 *   connector → lab  hello { pid, host, scratch, port? }  once, first (port: a server's, on its node)
 *                    worker { message }                  a JSON line the worker wrote to stdout
 *                    log { stream, line }                any other output line
 *                    done { ref } | failed { ref, message }  a `put` that ended, or a `read` that failed
 *                    exit { code, signal }               the worker process is gone (then the socket closes)
 *                    binary: file { ref, sha256 }        the file a `read` asked for
 *   lab → connector  request { message }                 a line for the worker's stdin
 *                    read { ref, path }                  send this file (path relative to the scratch folder)
 *                    open { launch, token }              a server's stream (below)
 *                    binary: put { ref, path, sha256 }   write this file there (checked against sha256 first)
 *
 * A server worker (an HTTP engine such as vLLM) runs on a loopback port of
 * its node. For each TCP connection the lab accepts on its own loopback port
 * (loopbackTunnel.ts), it expects one more connection at its control
 * endpoint and sends `open` with that launch's id and token: the connector
 * dials it and joins it to the server's port — only ever that port, so the
 * lab cannot be made to reach anything else on the node — and the bytes go
 * as binary messages until either side closes.
 *
 * Files cross machines by content only: each one carries the sha256 of its
 * bytes and the receiver checks it (weights are never trusted by path).
 */
import { z } from 'zod';

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const relativePath = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith('/') && !p.split('/').some((part) => part === '..' || part === ''), 'a path relative to the scratch folder');

export const connectorMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('hello'), pid: z.int(), host: z.string(), scratch: z.string().min(1), port: z.int().min(1).max(65535).optional() }),
  z.strictObject({ type: z.literal('worker'), message: z.unknown() }),
  z.strictObject({ type: z.literal('log'), stream: z.enum(['stdout', 'stderr']), line: z.string() }),
  z.strictObject({ type: z.literal('done'), ref: z.int() }),
  z.strictObject({ type: z.literal('failed'), ref: z.int(), message: z.string() }),
  z.strictObject({ type: z.literal('exit'), code: z.int().nullable(), signal: z.string().nullable() }),
]);
export type ConnectorMessage = z.infer<typeof connectorMessageSchema>;

export const fileHeaderSchema = z.strictObject({ type: z.literal('file'), ref: z.int(), sha256 });

export const labMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('request'), message: z.unknown() }),
  z.strictObject({ type: z.literal('read'), ref: z.int(), path: relativePath }),
  z.strictObject({ type: z.literal('open'), launch: z.string().regex(/^[A-Za-z0-9-]+$/), token: z.string().min(1) }),
]);
export type LabMessage = z.infer<typeof labMessageSchema>;

export const putHeaderSchema = z.strictObject({ type: z.literal('put'), ref: z.int(), path: relativePath, sha256 });
export type PutHeader = z.infer<typeof putHeaderSchema>;

/** A binary message: the header's JSON, a newline, the bytes. */
export function fileMessage(header: PutHeader, bytes: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), bytes]);
}

/** A binary message's header (still to be validated) and bytes. */
export function splitFileMessage(message: Buffer): { header: unknown; bytes: Buffer } {
  const newline = message.indexOf(0x0a);
  if (newline < 0) throw new Error('a binary message without a header');
  return { header: JSON.parse(message.subarray(0, newline).toString('utf8')), bytes: message.subarray(newline + 1) };
}
