/**
 * What GateLab's connector (src/remote/connector/gatelab_connector.py) is
 * started with, wherever it runs: its own source (it travels in the
 * environment, so a node needs no GateLab files to run it), the control
 * endpoint's URL and the launch's token, and the worker's command as a JSON
 * argument array (never through a shell) with its environment.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SERVER_PORT_PLACEHOLDER } from '../processes/serverProcess';
import type { WorkerEntry } from '../processes/workerEntry';
import type { ExpectedWorker } from './controlHub';

/** The packages the connector imports on a node besides Ray (the job's runtime_env installs them; pinned as in requirements.txt). */
export const CONNECTOR_PACKAGES = ['aiohttp==3.14.5'] as const;

/** The connector's source: it travels in the job's environment, so a node needs no GateLab files to run it. */
export function connectorSource(): string {
  const candidates = [
    new URL('./connector/gatelab_connector.py', import.meta.url), // sources, and built: dist/remote → dist/remote/connector
    new URL('../workers/gatelab_connector.py', import.meta.url), // built: dist/<part>/x.js → dist/workers
  ];
  for (const candidate of candidates) {
    try {
      return readFileSync(fileURLToPath(candidate), 'utf8');
    } catch {
      // try the next place
    }
  }
  throw new Error('the Ray connector (src/remote/connector/gatelab_connector.py) is missing from this build');
}

/** The command a worker entry runs on a node: always JSON lines on stdin/stdout (the connector bridges them). */
function remoteCommand(entry: WorkerEntry): { argv: string[]; env: Record<string, string> } {
  switch (entry.kind) {
    case 'node':
    case 'process':
      return { argv: [entry.command, ...entry.args], env: { ...entry.env } };
    case 'utility':
      // Electron's own binary acts as plain Node when asked to.
      return { argv: [process.execPath, entry.modulePath, ...entry.args], env: { ELECTRON_RUN_AS_NODE: '1' } };
    default: {
      const unreachable: never = entry;
      throw new Error(`unknown worker entry ${JSON.stringify(unreachable)}`);
    }
  }
}

// Reads the connector from the environment and runs it as __main__: the entrypoint line stays short and fixed.
export const CONNECTOR_BOOTSTRAP = "import os;exec(compile(os.environ['GATELAB_CONNECTOR_SOURCE'],'gatelab_connector.py','exec'))";

/** `<method>:<n>`: the connector holds the n-th request of that method, so a test can stop its job mid-request. */
export const HOLD_REQUEST_ENV = 'GATELAB_TEST_HOLD_REQUEST';

/**
 * The connector's environment for one launch of `entry`; `env` is added to
 * the worker's. `server`: the worker is an HTTP server whose argv names its
 * port as SERVER_PORT_PLACEHOLDER.
 */
export function connectorEnvironment(
  expected: Pick<ExpectedWorker, 'url' | 'token'>,
  entry: WorkerEntry,
  env: Readonly<Record<string, string>>,
  mode: 'jsonl' | 'server' = 'jsonl',
): Record<string, string> {
  const command = remoteCommand(entry);
  if (mode === 'server' && !command.argv.some((a) => a.includes(SERVER_PORT_PLACEHOLDER))) {
    throw new Error(`a server worker's command must name its port as ${SERVER_PORT_PLACEHOLDER}`);
  }
  return {
    ...(mode === 'server' ? { GATELAB_WORKER_MODE: 'server' } : {}),
    GATELAB_CONNECTOR_SOURCE: connectorSource(),
    GATELAB_CONTROL_URL: expected.url,
    GATELAB_CONTROL_TOKEN: expected.token,
    GATELAB_WORKER_ARGV: JSON.stringify(command.argv),
    GATELAB_WORKER_ENV: JSON.stringify({ ...command.env, ...env }),
    // A test's barrier, passed on from the lab's environment when set (gatelab_connector.py).
    ...(process.env[HOLD_REQUEST_ENV] ? { [HOLD_REQUEST_ENV]: process.env[HOLD_REQUEST_ENV] } : {}),
  };
}
