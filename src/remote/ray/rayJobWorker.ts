/**
 * A worker role as a Ray job (recipe `runner: ray`): the launcher a
 * supervisor uses instead of spawning a local process. It submits the job
 * through Ray's job REST API — the entrypoint is GateLab's connector, which
 * runs the worker's command on the node Ray picks and connects back to the
 * lab's control endpoint with this launch's token — then polls the job's
 * status, streams its log into the workers panel, and stops it when the
 * supervisor kills the worker. A job that fails or is stopped, or a
 * connection that is lost, is the worker's exit: the supervisor restarts it
 * (a new job) or gives up, as for any worker.
 */
import { randomBytes } from 'node:crypto';
import type { LaunchOptions, WorkerLauncher, WorkerProcess } from '../../processes/workerProcess';
import type { WorkerEntry } from '../../processes/workerEntry';
import { controlHub, type ControlEndpointOptions } from '../controlHub';
import { RemoteWorkerProcess, type RemoteCallHooks } from '../remoteWorkerProcess';
import type { LoopbackTunnel } from '../loopbackTunnel';
import { CONNECTOR_BOOTSTRAP, connectorEnvironment } from '../connectorEnvironment';
import { isTerminalStatus, RayJobsClient, type RayJobStatus } from './rayJobsClient';
import { shellCommandLine } from './shellQuote';

export type RayJobLaunch = {
  /** The dashboard's address (http://head:8265). */
  readonly address: string;
  /** The Python on each node that runs the connector (stdlib only). */
  readonly python: string;
  readonly control: ControlEndpointOptions;
  /** The role, for the submission id and the workers panel. */
  readonly role: string;
  readonly numCpus: number;
  readonly numGpus?: number;
  readonly memory?: number;
  /** Ray's node IP: the job asks for `node:<ip>` so that it runs there. */
  readonly node?: string;
  /** Environment for the worker's process (runner.env and the placement's, without CUDA_VISIBLE_DEVICES: Ray sets that). */
  readonly env: Readonly<Record<string, string>>;
  /** Moves the files a call names (the trainer's candidates and checkpoints). */
  readonly hooks?: () => RemoteCallHooks;
  /** How often the job's status and log are read. */
  readonly pollMs?: number;
};

export function rayJobLauncher(launch: RayJobLaunch): WorkerLauncher {
  return (entry: WorkerEntry, options: LaunchOptions): WorkerProcess => submitRayJob(launch, entry, options);
}

/**
 * Submits one launch of `entry` as a Ray job and follows it. With a
 * `tunnel`, the entry is a server (the connector's server mode: its argv
 * names SERVER_PORT_PLACEHOLDER) whose port the tunnel reaches.
 */
export function submitRayJob(launch: RayJobLaunch, entry: WorkerEntry, options: LaunchOptions, tunnel?: LoopbackTunnel): RemoteWorkerProcess {
  const client = new RayJobsClient(launch.address);
  const submissionId = `gatelab-${launch.role}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  let status: RayJobStatus | 'submitting' = 'submitting';
  let stopRequested = false;
  const stopJob = () => {
    if (stopRequested || status === 'submitting') return;
    stopRequested = true;
    client.stop(submissionId).catch((error: unknown) => options.onLog?.(`[${options.name}] stopping Ray job ${submissionId}: ${(error as Error).message}`, 'stderr'));
  };
  const worker = new RemoteWorkerProcess(options.name, options, launch.hooks?.(), `ray job ${submissionId}`, () => stopJob(), tunnel);
  // However the worker ended (its exit, a lost connection), its job must not outlive it.
  worker.onExit(() => stopJob());
  void (async () => {
    const hub = controlHub(launch.control);
    const expected = await hub.expect(`${launch.role}`);
    worker.onExit(() => expected.cancel('the launch ended'));
    expected.connected.then(
      (socket) => worker.attach(socket),
      () => undefined,
    );
    await client.submit({
      entrypoint: shellCommandLine([launch.python, '-c', CONNECTOR_BOOTSTRAP]),
      submissionId,
      runtimeEnv: { env_vars: connectorEnvironment(expected, entry, { ...launch.env, ...(options.env ?? {}) }, tunnel ? 'server' : 'jsonl') },
      metadata: { gatelab_role: launch.role },
      numCpus: launch.numCpus,
      ...(launch.numGpus !== undefined ? { numGpus: launch.numGpus } : {}),
      ...(launch.memory !== undefined ? { memory: launch.memory } : {}),
      ...(launch.node !== undefined ? { resources: { [`node:${launch.node}`]: 0.001 } } : {}),
    });
    status = 'PENDING';
    options.onLog?.(`[${options.name}] submitted Ray job ${submissionId} to ${client.address}`, 'stderr');
    if (worker.exited) stopJob(); // killed while submitting
    await followJob(client, submissionId, worker, options, launch.pollMs ?? 1000, (s) => {
      status = s;
    });
  })().catch((error: unknown) => {
    worker.fire({ code: null, signal: null, error: `Ray job ${submissionId}: ${(error as Error).message}` });
  });
  return worker;
}

/** Polls status and log until the job is terminal; a terminal job is the worker's exit. */
async function followJob(
  client: RayJobsClient,
  submissionId: string,
  worker: RemoteWorkerProcess,
  options: LaunchOptions,
  pollMs: number,
  onStatus: (status: RayJobStatus) => void,
): Promise<void> {
  let linesSeen = 0;
  let lastSaid = '';
  let failures = 0;
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  for (;;) {
    try {
      const info = await client.info(submissionId);
      onStatus(info.status);
      // A job that waits for resources says why only here: the workers panel shows each change.
      const said = `${info.status}${info.message ? `: ${info.message}` : ''}`;
      if (said !== lastSaid) options.onLog?.(`[${options.name}] Ray job ${submissionId} ${said}`, 'stderr');
      lastSaid = said;
      const lines = (await client.logs(submissionId)).split('\n');
      if (lines.at(-1) === '') lines.pop();
      for (const line of lines.slice(linesSeen)) options.onLog?.(line, 'stderr');
      linesSeen = Math.max(linesSeen, lines.length);
      failures = 0;
      if (isTerminalStatus(info.status)) {
        worker.fire({
          code: info.driver_exit_code ?? null,
          signal: null,
          error: `Ray job ${submissionId} ${info.status}${info.message ? `: ${info.message}` : ''}`,
        });
        return;
      }
    } catch (error) {
      // A dashboard that stops answering for long is a lost worker too.
      failures += 1;
      if (failures >= 10) throw error;
    }
    await sleep(pollMs);
  }
}
