/**
 * One worker role as a Ray actor of the run's job (rayJob.ts), seen as the
 * supervisor sees any worker: a WorkerProcess. Requests go out in order;
 * the worker's answers come back validated by the same WorkerConnection as a
 * local worker's. The actor's end — its worker exited, or Ray lost it — is
 * the worker's exit: the supervisor starts another, as for any crash (the
 * restarted role needs the lab's setup, init and restore, which only the lab
 * knows; so Ray's own actor restarts are not used).
 *
 * Calls whose params or results name files (a trainer's candidates and
 * checkpoints, an engine's adapter) pass through `RoleCallHooks`, which move
 * the files through the job's object store (trainerWeights.ts,
 * engineWeights.ts): nothing relies on a shared filesystem.
 *
 * A server worker (an HTTP engine) answers no RPC: each connection its
 * tunnel accepts is one more WebSocket from the actor to the lab's control
 * endpoint, joined to the server's port on its node (loopbackTunnel.ts).
 */
import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';
import { ExitSignal, type LaunchOptions, type WorkerExit, type WorkerProcess } from '../../processes/workerProcess';
import { SHUTDOWN_METHOD, WorkerMessageSchema, type RequestMessage } from '../../processes/workerMessages';
import { controlHub, type ControlEndpointOptions } from './controlHub';
import type { LoopbackTunnel, StreamOpener } from './loopbackTunnel';
import type { ActorOptions, RayJob, RoleSpec, Started } from './rayJob';

/** A role's scratch folder on its node, through the object store. */
export interface RoleFiles {
  /** Absolute on the node. */
  readonly scratch: string;
  /** Files under the scratch folder (a folder: all under it), copied here, each checked against its sha256. */
  export(paths: readonly string[]): Promise<Map<string, Buffer>>;
  /** Writes files under `folder` of the scratch folder; resolves with its absolute path there. */
  place(folder: string, files: ReadonlyArray<readonly [string, Buffer]>): Promise<string>;
}

/** Moves a call's files: `request` before it goes out, `result` before its answer reaches the lab. */
export interface RoleCallHooks {
  request(request: RequestMessage, files: RoleFiles): Promise<RequestMessage>;
  /** Results only (errors and progress pass through). Throwing answers the call with `transfer_failed`. */
  result(request: RequestMessage, result: unknown, files: RoleFiles): Promise<unknown>;
}

export type RayRoleLaunch = {
  readonly job: RayJob;
  readonly control: ControlEndpointOptions;
  readonly actor: ActorOptions;
  readonly hooks?: RoleCallHooks | undefined;
  /** A server worker: the tunnel its streams belong to. */
  readonly tunnel?: LoopbackTunnel | undefined;
};

/** How long a stream's connection from the actor may take before the lab gives up on it. */
const STREAM_CONNECT_MS = 30_000;

export class RayRoleProcess implements WorkerProcess, StreamOpener {
  readonly pid = undefined;
  readonly label: string;
  readonly #exit = new ExitSignal();
  readonly #listeners: Array<(message: unknown) => void> = [];
  readonly #launch: string;
  readonly #started: Promise<Started>;
  /** Outgoing requests, in order (a hook may take time); answers likewise, in order of arrival. */
  #outgoing: Promise<void> = Promise.resolve();
  /** The lab asked it to end (`__shutdown`, a kill): its exit then releases the job. */
  #ending = false;
  #incoming: Promise<void> = Promise.resolve();
  readonly #requests = new Map<number, RequestMessage>();

  constructor(
    private readonly setup: RayRoleLaunch,
    spec: RoleSpec,
    private readonly options: LaunchOptions,
  ) {
    this.#launch = `${spec.name.replace(/[^A-Za-z0-9-]/g, '-')}-${randomBytes(4).toString('hex')}`;
    this.label = `ray job ${setup.job.submissionId}`;
    const events = {
      out: (stream: 'stdout' | 'stderr', line: string) => this.#out(stream, line, spec.mode),
      exit: (exit: WorkerExit) => this.#inOrder(async () => this.#fire(exit)),
    };
    this.#started = setup.job.start(this.#launch, spec, setup.actor, events);
    this.#started.then(
      (s) => {
        this.#log(
          `actor ${s.actor} on ${s.host} (node ${s.node}), pid ${s.pid}, scratch ${s.scratch}${s.port !== null ? `, server port ${s.port} there` : ''}`,
        );
        if (!this.#exit.fired) setup.tunnel?.attach(this);
      },
      (error: Error) => this.#fire({ code: null, signal: null, error: `${this.label}: ${error.message}` }),
    );
    this.#started.catch(() => undefined);
  }

  get exited(): boolean {
    return this.#exit.fired;
  }

  send(message: RequestMessage): void {
    if (this.#exit.fired) throw new Error(`worker ${this.options.name} has exited`);
    if (message.method === SHUTDOWN_METHOD) this.#ending = true;
    this.#requests.set(message.id, message);
    this.#outgoing = this.#outgoing.then(async () => {
      try {
        const files = await this.files();
        const out = this.setup.hooks ? await this.setup.hooks.request(message, files) : message;
        await this.setup.job.write(this.#launch, JSON.stringify(out));
      } catch (error) {
        this.#requests.delete(message.id);
        this.#deliver({ id: message.id, error: { code: 'transfer_failed', message: `${message.method}: ${(error as Error).message}` } });
      }
    });
  }

  onMessage(listener: (message: unknown) => void): void {
    this.#listeners.push(listener);
  }

  onExit(listener: (exit: WorkerExit) => void): void {
    this.#exit.on(listener);
  }

  kill(signal: 'SIGTERM' | 'SIGKILL'): void {
    if (this.#exit.fired) return;
    this.#ending = true;
    void this.#started.then(() => this.setup.job.stop(this.#launch)).catch((error: unknown) => this.#log(`stopping the actor: ${(error as Error).message}`));
    // SIGKILL means now: the lab is done with it, whatever the actor does.
    if (signal === 'SIGKILL') this.#fire({ code: null, signal: 'SIGKILL' });
  }

  /** The role's scratch folder once its actor runs (rejects if it never does). */
  async files(): Promise<RoleFiles> {
    const { scratch } = await this.#started;
    const { job } = this.setup;
    return {
      scratch,
      export: (paths) => job.export(this.#launch, paths),
      place: (folder, files) =>
        job.place(this.#launch, folder, files, (sha256, bytes) => this.#log(`sent ${sha256} (${bytes} bytes) to the cluster: it held no copy`)),
    };
  }

  /** StreamOpener: a connection the tunnel accepted gets its own WebSocket from the actor, joined to the server. */
  async openStream(): Promise<WebSocket> {
    const expected = await controlHub(this.setup.control).expect(`${this.#launch}-stream`);
    const timer = setTimeout(() => expected.cancel('the actor did not open the stream'), STREAM_CONNECT_MS);
    try {
      await this.setup.job.ask({ op: 'open', launch: this.#launch, url: expected.url, token: expected.token });
      return await expected.connected;
    } finally {
      clearTimeout(timer);
      expected.cancel('the stream was not opened'); // nothing once it connected
    }
  }

  #fire(exit: WorkerExit): void {
    if (this.#exit.fired) return;
    this.setup.tunnel?.detach(this);
    this.#exit.fire(exit);
    if (this.#ending) this.setup.job.release();
  }

  #out(stream: 'stdout' | 'stderr', line: string, mode: RoleSpec['mode']): void {
    if (stream === 'stderr' || mode === 'server') return this.options.onLog?.(line, stream);
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      return this.options.onLog?.(line, stream);
    }
    const parsed = WorkerMessageSchema.safeParse(raw);
    // Unreadable worker lines go to the connection as they are: it logs them, as it does a local worker's.
    if (!parsed.success || !('id' in parsed.data) || !('result' in parsed.data)) {
      if (parsed.success && 'error' in parsed.data) this.#requests.delete(parsed.data.id);
      return this.#inOrder(async () => raw);
    }
    const answer = parsed.data;
    const request = this.#requests.get(answer.id);
    this.#requests.delete(answer.id);
    const hooks = this.setup.hooks;
    if (!hooks || !request) return this.#inOrder(async () => answer);
    this.#inOrder(async () => {
      try {
        return { id: answer.id, result: await hooks.result(request, answer.result, await this.files()) };
      } catch (error) {
        return { id: answer.id, error: { code: 'transfer_failed', message: `${request.method}: ${(error as Error).message}` } };
      }
    });
  }

  /** Answers in order of arrival (a hook on one must not let a later one overtake it), and the exit after them. */
  #inOrder(produce: () => Promise<unknown>): void {
    this.#incoming = this.#incoming.then(async () => {
      const message = await produce();
      if (message !== undefined) this.#deliver(message);
    });
  }

  #deliver(message: unknown): void {
    for (const listener of this.#listeners) listener(message);
  }

  #log(line: string): void {
    this.options.onLog?.(`[${this.options.name}] ${line}`, 'stderr');
  }
}
