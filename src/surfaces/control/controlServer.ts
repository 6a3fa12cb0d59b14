// How `gatelab confirm|reject|rollback|inject|status` reach a run that another
// process is running: a small HTTP endpoint on 127.0.0.1 (docs/design.md, invariant 7: Host
// checked, the per-launch token required), announced in runs/<id>/control.json
// (mode 0600) while the run lives. The run process stays the only writer of
// its journal; the endpoint only asks its gate — the core decides.
import { randomBytes } from 'node:crypto';
import { chmod, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { BAD_CANDIDATE_KINDS, CANDIDATE_ID_PATTERN } from '../../core/gate/candidateVocabulary';
import { writeFileAtomic } from '../../core/journal/atomicFile';
import { OpenAiError } from '../gateway/openAiError';
import { checkBearerToken, checkHost, parseJsonBody, readBody } from '../http/requestGuards';
import { GateRequestError } from '../../core/gate/releaseGate';
import { IllegalTransitionError } from '../../core/gate/gateState';
import { SessionExclusionError } from '../../run/live/excludeSession';
import type { LiveRun } from '../../run/liveRun';
import { liveHolder, runPaths } from '../../run/runFolder';

export const controlRequestSchema = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('status') }),
  z.strictObject({ action: z.literal('confirm'), id: z.string().regex(CANDIDATE_ID_PATTERN) }),
  z.strictObject({ action: z.literal('reject'), id: z.string().regex(CANDIDATE_ID_PATTERN), reason: z.string().min(1).max(500) }),
  z.strictObject({ action: z.literal('rollback'), version: z.string().min(1).max(100) }),
  z.strictObject({ action: z.literal('inject'), kind: z.enum(BAD_CANDIDATE_KINDS) }),
  z.strictObject({ action: z.literal('inject-file'), file: z.string().min(1).max(4096) }),
  z.strictObject({ action: z.literal('exclude'), session: z.int().min(0), reason: z.string().min(1).max(500) }),
]);
export type ControlRequest = z.infer<typeof controlRequestSchema>;

const controlFileSchema = z.strictObject({ pid: z.int(), url: z.url(), token: z.string().min(16) });

/** Runs one request against a run (live here, or opened offline by the CLI). */
export async function performControl(run: LiveRun, request: ControlRequest): Promise<unknown> {
  switch (request.action) {
    case 'status':
      return run.status();
    case 'confirm':
      return summarize(await run.confirm(request.id));
    case 'reject':
      return summarize(await run.reject(request.id, request.reason));
    case 'rollback':
      return { serving: await run.rollback(request.version) };
    case 'inject': {
      const c = await run.inject({ kind: request.kind });
      return summarize(c);
    }
    case 'inject-file':
      return summarize(await run.inject({ file: request.file }));
    case 'exclude':
      return run.exclude(request.session, request.reason);
    default: {
      const unknown: never = request;
      throw new Error(`unknown action ${JSON.stringify(unknown)}`);
    }
  }
}

const summarize = (c: { id: string; version: string; state: { kind: string } }) => ({ id: c.id, version: c.version, state: c.state.kind });

export async function startControlServer(run: LiveRun): Promise<{ url: string; close(): Promise<void> }> {
  const token = randomBytes(24).toString('base64url');
  let port = 0;
  const server = createServer((request, response) => {
    void handle(request, response);
  });
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    try {
      checkHost(request, port);
      checkBearerToken(request, token);
      if (request.method !== 'POST' || request.url !== '/control') return send(response, 404, { error: { message: 'POST /control only' } });
      const parsed = controlRequestSchema.safeParse(parseJsonBody(await readBody(request, 64 * 1024)));
      if (!parsed.success) return send(response, 400, { error: { message: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') } });
      send(response, 200, { result: await performControl(run, parsed.data) });
    } catch (error) {
      if (error instanceof OpenAiError) return send(response, error.status, { error: { message: error.message } });
      const status = error instanceof GateRequestError || error instanceof IllegalTransitionError || error instanceof SessionExclusionError ? 409 : 500;
      send(response, status, { error: { message: (error as Error).message } });
    }
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const file = runPaths(run.runDir).control;
  await writeFileAtomic(file, JSON.stringify({ pid: process.pid, url, token }) + '\n');
  await chmod(file, 0o600);
  return {
    url,
    close: async () => {
      await rm(file, { force: true });
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

/** Asks the process running the run, if one is; undefined when no process holds it. */
export async function askLiveRun(runDir: string, request: ControlRequest): Promise<{ result: unknown } | undefined> {
  const holder = await liveHolder(runDir);
  if (holder === undefined) return undefined;
  const text = await readFile(runPaths(runDir).control, 'utf8').catch(() => null);
  if (text === null) throw new Error(`${runDir} is held by process ${holder}, which is not accepting requests yet; try again`);
  const control = controlFileSchema.parse(JSON.parse(text));
  const response = await fetch(`${control.url}/control`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${control.token}` },
    body: JSON.stringify(request),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (!response.ok) throw new Error(body.error?.message ?? `the run answered ${response.status}`);
  return { result: body.result };
}
