/**
 * The messages between the lab's control endpoint and GateLab's connector
 * (src/remote/connector/gatelab_connector.py), which runs a worker's command
 * on another machine and bridges its stdin/stdout JSON lines over one
 * WebSocket. One JSON object per text frame. The worker's own RPC
 * (workerMessages.ts: requests, answers, progress, ready) rides inside
 * `request` / `worker` unchanged, so the trainer and engine protocols are
 * exactly those of a local `process` worker.
 *
 *   connector → lab  hello { pid, host, scratch, port? } once, first (port: a server's, see below)
 *                    worker { message }                a JSON line the worker wrote to stdout
 *                    log { stream, line }              any other output line
 *                    chunk { ref, data, last, sha256? } a piece of a file the lab asked to read (base64)
 *                    done { ref } | failed { ref, message }  a file put / read that ended
 *                    exit { code, signal }             the worker process is gone (then the socket closes)
 *                    data { stream, data } | close { stream, error? }  a tunnelled TCP stream (below)
 *   lab → connector  request { message }               a line for the worker's stdin
 *                    read { ref, path }                send this file (path relative to the scratch folder)
 *                    put { ref, path, data, last, sha256? } write a file there (sha256 checked on the last piece)
 *                    open { stream } | data { stream, data } | close { stream }  a tunnelled TCP stream
 *
 * A server worker (an HTTP engine such as vLLM: the connector's `server`
 * mode) does not speak JSON lines: the connector picks a free loopback port
 * on its node, gives it to the server's command line, reports it in `hello`,
 * and carries TCP streams to it: the lab opens a stream for each connection
 * it accepts on its own loopback port (loopbackTunnel.ts), bytes go both ways
 * base64-encoded in `data`, and either side ends it with `close`. `open`
 * names no host or port: the connector only ever connects to
 * 127.0.0.1:<its server's port>, so the lab cannot be made to reach anything
 * else on the node through it.
 *
 * Files cross machines by content only: every transfer names the sha256 of
 * the whole file and the receiver checks it (weights are never trusted by
 * path). Paths are relative to the connector's own scratch folder; the
 * connector refuses anything outside it.
 */
import { z } from 'zod';

/** Raw bytes per `chunk`/`put` message (base64 makes it 4/3 larger on the wire). */
export const CHUNK_BYTES = 4 * 1024 * 1024;

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const relativePath = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith('/') && !p.split('/').some((part) => part === '..' || part === ''), 'a path relative to the scratch folder');

/** A tunnelled stream's number: chosen by the lab, one per accepted connection. */
const streamId = z.int().min(1);
const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64');

export const connectorMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('hello'), pid: z.int(), host: z.string(), scratch: z.string().min(1), port: z.int().min(1).max(65535).optional() }),
  z.strictObject({ type: z.literal('worker'), message: z.unknown() }),
  z.strictObject({ type: z.literal('log'), stream: z.enum(['stdout', 'stderr']), line: z.string() }),
  z.strictObject({ type: z.literal('chunk'), ref: z.int(), data: z.string(), last: z.boolean(), sha256: sha256.optional() }),
  z.strictObject({ type: z.literal('done'), ref: z.int() }),
  z.strictObject({ type: z.literal('failed'), ref: z.int(), message: z.string() }),
  z.strictObject({ type: z.literal('exit'), code: z.int().nullable(), signal: z.string().nullable() }),
  z.strictObject({ type: z.literal('data'), stream: streamId, data: base64 }),
  z.strictObject({ type: z.literal('close'), stream: streamId, error: z.string().optional() }),
]);
export type ConnectorMessage = z.infer<typeof connectorMessageSchema>;

export const labMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('request'), message: z.unknown() }),
  z.strictObject({ type: z.literal('read'), ref: z.int(), path: relativePath }),
  z.strictObject({ type: z.literal('put'), ref: z.int(), path: relativePath, data: z.string(), last: z.boolean(), sha256: sha256.optional() }),
  z.strictObject({ type: z.literal('open'), stream: streamId }),
  z.strictObject({ type: z.literal('data'), stream: streamId, data: base64 }),
  z.strictObject({ type: z.literal('close'), stream: streamId }),
]);
export type LabMessage = z.infer<typeof labMessageSchema>;
