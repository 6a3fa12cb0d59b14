/**
 * A client of Ray's job submission REST API (the dashboard's documented
 * `/api/jobs/` endpoints), from the Node main process: no Python on the
 * desktop's side. Submit (entrypoint, runtime_env, submission_id), status,
 * its log, stop. Every answer is validated. Ray's own clients (the Python
 * SDK, the CLI) make the same calls.
 */
import http from 'node:http';
import https from 'node:https';
import { z } from 'zod';

/** Ray's JobStatus; the last three are terminal. */
export const RAY_JOB_STATUSES = ['PENDING', 'RUNNING', 'STOPPED', 'SUCCEEDED', 'FAILED'] as const;
export type RayJobStatus = (typeof RAY_JOB_STATUSES)[number];
export const isTerminalStatus = (status: RayJobStatus): boolean => status === 'STOPPED' || status === 'SUCCEEDED' || status === 'FAILED';

export type RayJobSubmission = {
  /** The shell command Ray runs (Ray runs it through a shell: quote every argument, see shellQuote.ts). */
  readonly entrypoint: string;
  readonly submissionId: string;
  /** env_vars for the job's processes; pip: packages Ray installs for them (into an environment on top of the node's own). */
  readonly runtimeEnv: { readonly env_vars: Readonly<Record<string, string>>; readonly pip?: readonly string[] };
  readonly metadata?: Readonly<Record<string, string>>;
};

const submitResponseSchema = z.object({ submission_id: z.string().min(1) });
const jobInfoSchema = z.object({
  status: z.enum(RAY_JOB_STATUSES),
  message: z.string().nullable().optional(),
  driver_exit_code: z.int().nullable().optional(),
});
export type RayJobInfo = z.infer<typeof jobInfoSchema>;
const logsResponseSchema = z.object({ logs: z.string() });
const stopResponseSchema = z.object({ stopped: z.boolean() });
const versionResponseSchema = z.object({ version: z.string(), ray_version: z.string() });

export class RayJobsClient {
  private readonly base: URL;

  constructor(
    address: string,
    private readonly timeoutMs = 30_000,
  ) {
    // The documented paths are relative to the dashboard's address, which may have a path of its own.
    this.base = new URL(address.endsWith('/') ? address : `${address}/`);
    if (this.base.protocol !== 'http:' && this.base.protocol !== 'https:') throw new Error(`the Ray dashboard address must be http(s): ${address}`);
  }

  get address(): string {
    return this.base.href;
  }

  async version(): Promise<z.infer<typeof versionResponseSchema>> {
    return versionResponseSchema.parse(await this.request('GET', 'api/version'));
  }

  /** Submits a job; resolves with its submission id once Ray has accepted it (it may still be PENDING). */
  async submit(job: RayJobSubmission): Promise<string> {
    const body = { entrypoint: job.entrypoint, submission_id: job.submissionId, runtime_env: job.runtimeEnv, metadata: job.metadata ?? {} };
    // The documented path ends with a slash.
    return submitResponseSchema.parse(await this.request('POST', 'api/jobs/', body)).submission_id;
  }

  async info(submissionId: string): Promise<RayJobInfo> {
    return jobInfoSchema.parse(await this.request('GET', `api/jobs/${encodeURIComponent(submissionId)}`));
  }

  /** The job's log so far (its driver's output, and so its actors'). */
  async logs(submissionId: string): Promise<string> {
    return logsResponseSchema.parse(await this.request('GET', `api/jobs/${encodeURIComponent(submissionId)}/logs`)).logs;
  }

  /** Asks Ray to stop the job (SIGTERM to its driver, then SIGKILL); false when it had already ended. */
  async stop(submissionId: string): Promise<boolean> {
    return stopResponseSchema.parse(await this.request('POST', `api/jobs/${encodeURIComponent(submissionId)}/stop`)).stopped;
  }

  // On node:http, not fetch: fetch sends Sec-Fetch-Mode, and the dashboard refuses a POST it takes for a browser's.
  private request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const url = new URL(path, this.base);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise<unknown>((resolve, reject) => {
      const failed = (why: string) => reject(new Error(`${method} ${url.pathname} at ${this.base.host}: ${why}`));
      const headers = { accept: 'application/json', ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.byteLength) } : {}) };
      const req = (url.protocol === 'https:' ? https : http).request(url, { method, headers, timeout: this.timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error) => failed(error.message));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) return failed(`HTTP ${res.statusCode}: ${text.slice(0, 500)}`);
          try {
            resolve(JSON.parse(text));
          } catch {
            failed(`not JSON: ${text.slice(0, 200)}`);
          }
        });
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on('error', (error) => failed(error.message));
      req.end(payload);
    });
  }
}
