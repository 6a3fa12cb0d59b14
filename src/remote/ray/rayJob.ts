/**
 * One run's Ray job (docs/design.md, Ray does the distributing): submitted
 * through the job REST API when the run's first Ray role starts; its driver
 * (gatelab_ray_job.py) dials the lab's control endpoint once, and over that
 * link the lab asks it for role actors, their input, and the weights' moves
 * through Ray's object store. The job ends when the lab has stopped every
 * role it carried, or when the link is lost (every role then exits, a crash
 * the supervisors handle: the next start submits a new job).
 *
 *   lab → job   {op, ref, …}: start {launch, spec, actor} | stop | export {paths} | place {folder, files}
 *               | open {url, token} | put {sha256} + bytes (binary); write {launch, line} (no answer)
 *   job → lab   answer {ref, result | error} (binary: with the exported bytes after the header line)
 *               out {launch, stream, line} · exit {launch, code, error?}
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { WebSocket } from 'ws';
import { z } from 'zod';
import { sha256Hex } from '../../core/weights/weightStore';
import type { WorkerExit } from '../../processes/workerProcess';
import { controlHub, type ControlEndpointOptions } from './controlHub';
import { isTerminalStatus, RayJobsClient } from './rayJobsClient';
import { shellCommandLine } from './shellQuote';

export type RayJobSettings = {
  /** The dashboard's address (http://head:8265). */
  readonly address: string;
  /** The Python (with Ray) that runs the driver. */
  readonly python: string;
  readonly control: ControlEndpointOptions;
  /** runtime_env env_vars: every process of the job. */
  readonly env: Readonly<Record<string, string>>;
};
/** What one actor runs: its worker's argv (no shell), environment, and whether it is a JSON-lines worker or an HTTP server. */
export type RoleSpec = {
  readonly name: string;
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly mode: 'jsonl' | 'server';
};
/** ray.remote options: the resources Ray places the actor by. */
export type ActorOptions = {
  readonly num_cpus: number;
  readonly num_gpus?: number;
  readonly memory?: number;
  readonly resources?: Readonly<Record<string, number>>;
};
export type LaunchEvents = { readonly out: (stream: 'stdout' | 'stderr', line: string) => void; readonly exit: (exit: WorkerExit) => void };

/** The packages the driver and its actors import besides Ray (the job's runtime_env; pinned as in requirements.txt). */
export const JOB_PACKAGES = ['aiohttp==3.14.5'] as const;
/** `<method>:<n>`: the actors hold the n-th request of that method, so a test can kill one mid-request. */
export const HOLD_REQUEST_ENV = 'GATELAB_TEST_HOLD_REQUEST';
// The driver's source travels in the environment, so a node needs no GateLab files: the entrypoint stays short and fixed.
const BOOTSTRAP = "import os;exec(compile(os.environ['GATELAB_JOB_SOURCE'],'gatelab_ray_job.py','exec'))";

export const startedSchema = z.object({
  host: z.string(),
  node: z.string(),
  actor: z.string(),
  pid: z.int(),
  scratch: z.string().min(1),
  port: z.int().min(1).max(65535).nullable(),
});
export type Started = z.infer<typeof startedSchema>;
const fromJobSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('answer'), ref: z.int(), result: z.unknown().optional(), error: z.string().optional() }),
  z.object({ type: z.literal('out'), launch: z.string(), stream: z.enum(['stdout', 'stderr']), line: z.string() }),
  z.object({ type: z.literal('exit'), launch: z.string(), code: z.int().nullable(), error: z.string().optional() }),
]);
const exportedSchema = z.object({ files: z.array(z.object({ path: z.string(), sha256: z.string(), size: z.int().min(0) })) });
const placedSchema = z.union([z.object({ missing: z.array(z.string()) }), z.object({ path: z.string() })]);

function jobSource(): string {
  // From the sources, or built: dist/<part>/x.js, the copy in dist/workers (scripts/build.mjs).
  for (const where of ['./gatelab_ray_job.py', '../workers/gatelab_ray_job.py']) {
    const file = fileURLToPath(new URL(where, import.meta.url));
    if (existsSync(file)) return readFileSync(file, 'utf8');
  }
  throw new Error("the Ray job's driver (src/remote/ray/gatelab_ray_job.py) is missing from this build");
}

type Pending = { resolve: (answer: { result: unknown; bytes: Buffer }) => void; reject: (error: Error) => void };

export class RayJob {
  readonly client: RayJobsClient;
  #submissionId = '';
  #link: Promise<WebSocket> | undefined;
  readonly #launches = new Map<string, LaunchEvents>();
  readonly #pending = new Map<number, Pending>();
  #nextRef = 1;

  constructor(private readonly settings: RayJobSettings) {
    this.client = new RayJobsClient(settings.address);
  }

  /** The current job's submission id (a new one once a lost job is replaced). */
  get submissionId(): string {
    this.#connect();
    return this.#submissionId;
  }

  /** Starts one actor for `spec`; its output and exit go to `events` until it exits. */
  async start(launch: string, spec: RoleSpec, actor: ActorOptions, events: LaunchEvents): Promise<Started> {
    await this.#connect();
    this.#launches.set(launch, events);
    try {
      return startedSchema.parse(await this.ask({ op: 'start', launch, spec, actor }));
    } catch (error) {
      this.#launches.delete(launch);
      throw error;
    }
  }

  /** A request line for the launch's worker, in order. */
  async write(launch: string, line: string): Promise<void> {
    (await this.#connect()).send(JSON.stringify({ op: 'write', launch, line }));
  }

  /** Stops the launch's actor, and releases the job. */
  async stop(launch: string): Promise<void> {
    if (!this.#link || !this.#launches.has(launch)) return; // it has exited (and a lost job is gone)
    try {
      await this.ask({ op: 'stop', launch });
    } finally {
      this.#launches.delete(launch);
      this.release();
    }
  }

  /** The lab is done with a launch: once none is left, the job ends (a crashed launch leaves it for the next one). */
  release(): void {
    if (this.#launches.size > 0 || !this.#link) return;
    const id = this.#submissionId;
    this.#link = undefined;
    void this.client.stop(id).catch(() => false);
  }

  /** Files of the launch's scratch folder (a folder: all under it), kept in the object store and copied here, each checked against its sha256. */
  async export(launch: string, paths: readonly string[]): Promise<Map<string, Buffer>> {
    const { result, bytes } = await this.#ask({ op: 'export', launch, paths });
    const files = new Map<string, Buffer>();
    let at = 0;
    for (const file of exportedSchema.parse(result).files) {
      const content = bytes.subarray(at, (at += file.size));
      if (sha256Hex(content) !== file.sha256) throw new Error(`${file.path} arrived as sha256 ${sha256Hex(content)}, not ${file.sha256}`);
      files.set(file.path, content);
    }
    return files;
  }

  /**
   * Writes files under `folder` of the launch's scratch from the object store, sending only the content the
   * cluster holds no copy of (`sent` hears of each); resolves with the folder's absolute path on its node.
   */
  async place(launch: string, folder: string, files: ReadonlyArray<readonly [string, Buffer]>, sent: (sha256: string, bytes: number) => void): Promise<string> {
    const named = files.map(([name, bytes]) => [name, sha256Hex(bytes)] as const);
    const bySha = new Map(named.map(([, sha], i) => [sha, (files[i] as readonly [string, Buffer])[1]]));
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const answer = placedSchema.parse(await this.ask({ op: 'place', launch, folder, files: named }));
      if ('path' in answer) return answer.path;
      for (const sha256 of answer.missing) {
        const bytes = bySha.get(sha256);
        if (!bytes) throw new Error(`the cluster asked for ${sha256}, which was not offered`);
        await this.#ask({ op: 'put', sha256 }, bytes);
        sent(sha256, bytes.byteLength);
      }
    }
    throw new Error(`the objects for ${folder} were dropped as soon as they were sent`);
  }

  async ask(body: Readonly<Record<string, unknown>>): Promise<unknown> {
    return (await this.#ask(body)).result;
  }

  async #ask(body: Readonly<Record<string, unknown>>, bytes?: Buffer): Promise<{ result: unknown; bytes: Buffer }> {
    const socket = await this.#connect();
    const ref = this.#nextRef++;
    const answer = new Promise<{ result: unknown; bytes: Buffer }>((resolve, reject) => this.#pending.set(ref, { resolve, reject }));
    const message = JSON.stringify({ ...body, ref });
    socket.send(bytes ? Buffer.concat([Buffer.from(`${message}\n`), bytes]) : message);
    return answer;
  }

  #connect(): Promise<WebSocket> {
    if (this.#link) return this.#link;
    const id = `gatelab-run-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
    this.#submissionId = id;
    const link = this.#submit(id);
    this.#link = link;
    link.catch(() => {
      if (this.#link === link) this.#link = undefined;
    });
    return link;
  }

  async #submit(id: string): Promise<WebSocket> {
    const expected = await controlHub(this.settings.control).expect('ray-job');
    const submitted = this.client.submit({
      entrypoint: shellCommandLine([this.settings.python, '-c', BOOTSTRAP]),
      submissionId: id,
      runtimeEnv: {
        env_vars: {
          ...this.settings.env,
          GATELAB_JOB_SOURCE: jobSource(),
          GATELAB_CONTROL_URL: expected.url,
          GATELAB_CONTROL_TOKEN: expected.token,
          ...(process.env[HOLD_REQUEST_ENV] ? { [HOLD_REQUEST_ENV]: process.env[HOLD_REQUEST_ENV] } : {}),
        },
        pip: JOB_PACKAGES,
      },
      metadata: { gatelab: 'run' },
    });
    await submitted.catch((error: unknown) => {
      expected.cancel('the job was not submitted');
      throw error;
    });
    // Connected, or the job ended first (a bad Python, a runtime_env that failed to install): its log says why.
    let connected = false;
    const ended = (async (): Promise<never> => {
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        if (connected) return new Promise<never>(() => undefined);
        const info = await this.client.info(id);
        if (isTerminalStatus(info.status)) {
          expected.cancel('the job ended');
          const log = (await this.client.logs(id).catch(() => '')).trim().split('\n').slice(-15).join('\n');
          throw new Error(`Ray job ${id} ${info.status}${info.message ? `: ${info.message}` : ''}\n${log}`);
        }
      }
    })();
    const socket = await Promise.race([expected.connected, ended]);
    connected = true;
    socket.on('message', (data: Buffer, isBinary) => this.#receive(data, isBinary));
    socket.on('close', () => this.#lost(id, `the link to Ray job ${id} closed`));
    return socket;
  }

  #receive(data: Buffer, isBinary: boolean): void {
    const newline = isBinary ? data.indexOf(0x0a) : -1;
    let raw: unknown;
    try {
      raw = JSON.parse((isBinary ? data.subarray(0, newline) : data).toString('utf8'));
    } catch {
      return; // not the job's: ignored, as the job ignores what it cannot read
    }
    const parsed = fromJobSchema.safeParse(raw);
    if (!parsed.success) return;
    const message = parsed.data;
    if (message.type === 'answer') {
      const pending = this.#pending.get(message.ref);
      this.#pending.delete(message.ref);
      if (message.error !== undefined) pending?.reject(new Error(message.error));
      else pending?.resolve({ result: message.result, bytes: isBinary ? data.subarray(newline + 1) : Buffer.alloc(0) });
    } else if (message.type === 'out') {
      this.#launches.get(message.launch)?.out(message.stream, message.line);
    } else {
      const events = this.#launches.get(message.launch);
      this.#launches.delete(message.launch);
      events?.exit({ code: message.code, signal: null, ...(message.error !== undefined ? { error: message.error } : {}) });
    }
  }

  #lost(id: string, why: string): void {
    if (this.#submissionId !== id) return; // an earlier job's link, long replaced
    this.#link = undefined;
    for (const [ref, pending] of this.#pending) {
      this.#pending.delete(ref);
      pending.reject(new Error(why));
    }
    for (const [launch, events] of this.#launches) {
      this.#launches.delete(launch);
      events.exit({ code: null, signal: null, error: why });
    }
  }
}

const jobs = new WeakMap<object, RayJob>();
/** The run's job: one per recipe runner (every Ray role of a run shares it, and so its object store). */
export function rayJobOf(runner: object, settings: RayJobSettings): RayJob {
  let job = jobs.get(runner);
  if (!job) jobs.set(runner, (job = new RayJob(settings)));
  return job;
}
