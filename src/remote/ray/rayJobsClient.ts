/**
 * A client of Ray's job submission REST API (the dashboard's documented
 * `/api/jobs/` endpoints), from the Node main process: no Python on the
 * desktop's side. Submit (entrypoint, resources, runtime_env,
 * submission_id), status, the log as it grows (the tail endpoint, a
 * WebSocket), stop. Every answer is validated.
 *
 * Written on node:http and ws because the API is a few small JSON calls and
 * one stream; Ray's own clients (the Python SDK, the CLI) make the same calls.
 */
import http from 'node:http';
import https from 'node:https';
import WebSocket from 'ws';
import { z } from 'zod';

/** Ray's JobStatus; the last three are terminal. */
export const RAY_JOB_STATUSES = ['PENDING', 'RUNNING', 'STOPPED', 'SUCCEEDED', 'FAILED'] as const;
export type RayJobStatus = (typeof RAY_JOB_STATUSES)[number];
export const isTerminalStatus = (status: RayJobStatus): boolean => status === 'STOPPED' || status === 'SUCCEEDED' || status === 'FAILED';

export type RayJobSubmission = {
  /** The shell command Ray runs (Ray runs it through a shell: quote every argument, see shellQuote.ts). */
  readonly entrypoint: string;
  readonly submissionId: string;
  readonly runtimeEnv?: { readonly env_vars?: Readonly<Record<string, string>>; readonly pip?: readonly string[] };
  readonly metadata?: Readonly<Record<string, string>>;
  readonly numCpus?: number;
  readonly numGpus?: number;
  readonly memory?: number;
  readonly resources?: Readonly<Record<string, number>>;
};

const submitResponseSchema = z.object({ submission_id: z.string().min(1) });
const jobInfoSchema = z.object({
  status: z.enum(RAY_JOB_STATUSES),
  message: z.string().nullable().optional(),
  submission_id: z.string().nullable().optional(),
  driver_exit_code: z.int().nullable().optional(),
  error_type: z.string().nullable().optional(),
});
export type RayJobInfo = z.infer<typeof jobInfoSchema>;
const stopResponseSchema = z.object({ stopped: z.boolean() });
const versionResponseSchema = z.object({ version: z.string(), ray_version: z.string() });

/** A call the API refused or could not answer, with its HTTP status (0: no answer). */
export class RayApiError extends Error {
  override readonly name = 'RayApiError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class RayJobsClient {
  private readonly base: URL;

  constructor(
    address: string,
    private readonly timeoutMs = 30_000,
  ) {
    this.base = new URL(address);
    if (this.base.protocol !== 'http:' && this.base.protocol !== 'https:') throw new Error(`the Ray dashboard address must be http(s): ${address}`);
  }

  get address(): string {
    return this.base.href;
  }

  async version(): Promise<z.infer<typeof versionResponseSchema>> {
    return versionResponseSchema.parse(await this.request('GET', '/api/version'));
  }

  /** Submits a job; resolves with its submission id once Ray has accepted it (it may still be PENDING). */
  async submit(job: RayJobSubmission): Promise<string> {
    const body = {
      entrypoint: job.entrypoint,
      submission_id: job.submissionId,
      runtime_env: job.runtimeEnv ?? {},
      metadata: job.metadata ?? {},
      ...(job.numCpus !== undefined ? { entrypoint_num_cpus: job.numCpus } : {}),
      ...(job.numGpus !== undefined ? { entrypoint_num_gpus: job.numGpus } : {}),
      ...(job.memory !== undefined ? { entrypoint_memory: job.memory } : {}),
      ...(job.resources !== undefined ? { entrypoint_resources: job.resources } : {}),
    };
    // The documented path ends with a slash.
    return submitResponseSchema.parse(await this.request('POST', '/api/jobs/', body)).submission_id;
  }

  async info(submissionId: string): Promise<RayJobInfo> {
    return jobInfoSchema.parse(await this.request('GET', `/api/jobs/${encodeURIComponent(submissionId)}`));
  }

  /**
   * Follows the job's log (the driver's stdout and stderr) from its start:
   * each piece as it is written. Resolves when Ray closes the stream — the
   * job has ended, or the dashboard dropped it — and the status says which.
   */
  tailLogs(submissionId: string, onText: (text: string) => void): Promise<void> {
    const url = new URL(`api/jobs/${encodeURIComponent(submissionId)}/logs/tail`, this.base.href.endsWith('/') ? this.base.href : `${this.base.href}/`);
    url.protocol = this.base.protocol === 'https:' ? 'wss:' : 'ws:';
    return new Promise<void>((resolve, reject) => {
      const socket = new WebSocket(url);
      socket.on('message', (data: Buffer) => onText(data.toString('utf8')));
      socket.on('unexpected-response', (_req, res) => reject(new RayApiError(res.statusCode ?? 0, `the log of ${submissionId}: HTTP ${res.statusCode}`)));
      socket.on('error', (error) => reject(new RayApiError(0, `the log of ${submissionId}: ${error.message}`)));
      socket.on('close', () => resolve());
    });
  }

  /** Asks Ray to stop the job (SIGTERM to its process group, then SIGKILL); false when it had already ended. */
  async stop(submissionId: string): Promise<boolean> {
    return stopResponseSchema.parse(await this.request('POST', `/api/jobs/${encodeURIComponent(submissionId)}/stop`)).stopped;
  }

  private request(method: 'GET' | 'POST', pathname: string, body?: unknown): Promise<unknown> {
    const url = new URL(pathname.replace(/^\//, ''), this.base.href.endsWith('/') ? this.base.href : `${this.base.href}/`);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise<unknown>((resolve, reject) => {
      const req = transport.request(
        url,
        {
          method,
          headers: {
            accept: 'application/json',
            ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.byteLength) } : {}),
          },
          timeout: this.timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', (error) => reject(new RayApiError(0, `${method} ${url.pathname}: ${error.message}`)));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            if (status < 200 || status >= 300) {
              reject(new RayApiError(status, `${method} ${url.pathname}: HTTP ${status}: ${text.slice(0, 500)}`));
              return;
            }
            try {
              resolve(JSON.parse(text));
            } catch {
              reject(new RayApiError(status, `${method} ${url.pathname}: not JSON: ${text.slice(0, 200)}`));
            }
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on('error', (error) => reject(new RayApiError(0, `${method} ${url.pathname} at ${this.base.host}: ${error.message}`)));
      req.end(payload);
    });
  }
}
