/**
 * A worker role on a Ray cluster (recipe `runner: ray`): the launcher a
 * supervisor uses instead of spawning a local process. It submits a Ray job
 * through the job REST API whose driver, GateLab's connector, asks Ray for
 * an actor with the role's resources (num_cpus, num_gpus, memory, a node):
 * Ray places it and gives it its GPUs. The actor runs the worker's command
 * and connects back to the lab's control endpoint with this launch's token.
 * The lab follows the job's log as Ray writes it into the workers panel, reads
 * its status once the log ends, and stops it when the supervisor kills the
 * worker. A job that fails or is stopped, or a connection that is lost, is
 * the worker's exit: the supervisor restarts it (a new job) or gives up, as
 * for any worker.
 */
import { randomBytes } from 'node:crypto';
import type { LaunchOptions, WorkerLauncher, WorkerProcess } from '../../processes/workerProcess';
import type { WorkerEntry } from '../../processes/workerEntry';
import { controlHub, type ControlEndpointOptions } from '../controlHub';
import { RemoteWorkerProcess, type RemoteCallHooks } from '../remoteWorkerProcess';
import type { LoopbackTunnel } from '../loopbackTunnel';
import { CONNECTOR_BOOTSTRAP, CONNECTOR_PACKAGES, connectorEnvironment } from '../connectorEnvironment';
import { isTerminalStatus, RayJobsClient } from './rayJobsClient';
import { shellCommandLine } from './shellQuote';

export type RayJobLaunch = {
  /** The dashboard's address (http://head:8265). */
  readonly address: string;
  /** The Python that runs the connector's driver (one with Ray). */
  readonly python: string;
  readonly control: ControlEndpointOptions;
  /** The role, for the submission id and the workers panel. */
  readonly role: string;
  /** The role's actor: Ray's resource request (ray.remote options). */
  readonly actor: { readonly num_cpus: number; readonly num_gpus?: number; readonly memory?: number; readonly resources?: Readonly<Record<string, number>> };
  /** Environment for the worker's process (runner.env and the placement's, without CUDA_VISIBLE_DEVICES: Ray sets that). */
  readonly env: Readonly<Record<string, string>>;
  /** Moves the files a call names (the trainer's candidates and checkpoints). */
  readonly hooks?: () => RemoteCallHooks;
};

/** How long to wait before the log's tail is opened again when it ended while the job runs. */
const STATUS_POLL_MS = 1000;

export function rayJobLauncher(launch: RayJobLaunch): WorkerLauncher {
  return (entry: WorkerEntry, options: LaunchOptions): WorkerProcess => submitRayJob(launch, entry, options);
}

/** Submits one launch of `entry` as a Ray job and follows it. With a `tunnel`, the entry is a server whose port the tunnel reaches. */
export function submitRayJob(launch: RayJobLaunch, entry: WorkerEntry, options: LaunchOptions, tunnel?: LoopbackTunnel): RemoteWorkerProcess {
  const client = new RayJobsClient(launch.address);
  const submissionId = `gatelab-${launch.role}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  const log = (line: string) => options.onLog?.(`[${options.name}] ${line}`, 'stderr');
  let submitted = false;
  let stopRequested = false;
  const stopJob = () => {
    if (stopRequested || !submitted) return;
    stopRequested = true;
    client.stop(submissionId).catch((error: unknown) => log(`stopping Ray job ${submissionId}: ${(error as Error).message}`));
  };
  const hub = controlHub(launch.control);
  const worker = new RemoteWorkerProcess({
    name: options.name,
    options,
    hooks: launch.hooks?.(),
    label: `ray job ${submissionId}`,
    terminate: stopJob,
    hub,
    tunnel,
  });
  // However the worker ended (its exit, a lost connection), its job must not outlive it.
  worker.onExit(() => stopJob());
  void (async () => {
    const expected = await hub.expect(launch.role);
    worker.onExit(() => expected.cancel('the launch ended'));
    expected.connected.then(
      (socket) => worker.attach(socket),
      () => undefined,
    );
    await client.submit({
      entrypoint: shellCommandLine([launch.python, '-c', CONNECTOR_BOOTSTRAP]),
      submissionId,
      runtimeEnv: {
        env_vars: {
          ...connectorEnvironment(expected, entry, { ...launch.env, ...(options.env ?? {}) }, tunnel ? 'server' : 'jsonl'),
          GATELAB_ACTOR_OPTIONS: JSON.stringify(launch.actor),
        },
        pip: CONNECTOR_PACKAGES,
      },
      metadata: { gatelab_role: launch.role },
    });
    submitted = true;
    log(`submitted Ray job ${submissionId} to ${client.address}`);
    if (worker.exited) stopJob(); // killed while submitting
    // The tail may end before the job does (the dashboard dropped it): while the job runs it is opened
    // again, and what it sends again from the start is skipped.
    let shown = 0;
    let pending = '';
    for (;;) {
      let received = 0;
      await client.tailLogs(submissionId, (text) => {
        const fresh = text.slice(Math.max(0, shown - received));
        received += text.length;
        shown += fresh.length;
        const lines = (pending + fresh).split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) options.onLog?.(line, 'stderr');
      });
      const info = await client.info(submissionId);
      if (isTerminalStatus(info.status)) {
        if (pending !== '') options.onLog?.(pending, 'stderr');
        const error = `Ray job ${submissionId} ${info.status}${info.message ? `: ${info.message}` : ''}`;
        return worker.fire({ code: info.driver_exit_code ?? null, signal: null, error });
      }
      await new Promise<void>((resolve) => setTimeout(resolve, STATUS_POLL_MS));
    }
  })().catch((error: unknown) => {
    worker.fire({ code: null, signal: null, error: `Ray job ${submissionId}: ${(error as Error).message}` });
  });
  return worker;
}
