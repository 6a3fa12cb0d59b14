/**
 * The remote transport without a cluster, for tests: GateLab's connector
 * started as a local child process (a real Python process, a real
 * WebSocket, the real control endpoint), in place of the Ray actor that runs
 * it on a node. What Ray adds — the job, the actor's placement, status,
 * logs — is tested against a real Ray head in tests/ray.integration.test.ts.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { LaunchOptions, WorkerLauncher, WorkerProcess } from '../../processes/workerProcess';
import type { WorkerEntry } from '../../processes/workerEntry';
import { controlHub, type ControlEndpointOptions } from '../controlHub';
import { CONNECTOR_BOOTSTRAP, connectorEnvironment } from '../connectorEnvironment';
import { RemoteWorkerProcess, type RemoteCallHooks } from '../remoteWorkerProcess';
import type { LoopbackTunnel } from '../loopbackTunnel';
import type { ServerConnectorStart } from '../remoteServerHost';

export type LocalConnectorLaunch = {
  /** A Python with the connector's packages (the Ray environment's). */
  readonly python: string;
  readonly control: ControlEndpointOptions;
  readonly hooks?: () => RemoteCallHooks;
  /** Extra environment for the connector itself (e.g. a token to present instead of the right one). */
  readonly connectorEnv?: (env: Record<string, string>) => Record<string, string>;
  /** Each connector process started, so a test can kill one (a lost connection). */
  readonly onConnector?: (pid: number) => void;
};

export function localConnectorLauncher(launch: LocalConnectorLaunch): WorkerLauncher {
  return (entry: WorkerEntry, options: LaunchOptions): WorkerProcess => startLocalConnector(launch, entry, options);
}

/** The same for a server worker (the connector's server mode), for remoteServerHost. */
export function localServerConnector(launch: LocalConnectorLaunch): ServerConnectorStart {
  return (entry, options, tunnel) => startLocalConnector(launch, entry, options, tunnel);
}

function startLocalConnector(launch: LocalConnectorLaunch, entry: WorkerEntry, options: LaunchOptions, tunnel?: LoopbackTunnel): RemoteWorkerProcess {
  let child: ReturnType<typeof spawn> | undefined;
  const hub = controlHub(launch.control);
  const worker = new RemoteWorkerProcess({
    name: options.name,
    options,
    hooks: launch.hooks?.(),
    label: 'local connector',
    terminate: (signal) => child?.kill(signal),
    hub,
    tunnel,
  });
  void (async () => {
    const expected = await hub.expect(options.name);
    worker.onExit(() => expected.cancel('the launch ended'));
    expected.connected.then(
      (socket) => worker.attach(socket),
      () => undefined,
    );
    let env = connectorEnvironment(expected, entry, options.env ?? {}, tunnel ? 'server' : 'jsonl');
    if (launch.connectorEnv) env = launch.connectorEnv(env);
    child = spawn(launch.python, ['-c', CONNECTOR_BOOTSTRAP], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], shell: false });
    if (child.pid !== undefined) launch.onConnector?.(child.pid);
    for (const stream of [child.stdout, child.stderr]) {
      if (stream) createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => options.onLog?.(line, 'stderr'));
    }
    child.on('error', (error) => worker.fire({ code: null, signal: null, error: error.message }));
    child.on('exit', (code, signal) => worker.fire({ code, signal, error: `the connector exited (${signal ?? code})` }));
  })().catch((error: unknown) => worker.fire({ code: null, signal: null, error: (error as Error).message }));
  return worker;
}
