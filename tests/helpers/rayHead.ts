// A local Ray head for integration tests: PyPI's `ray` from `npm run
// setup:ray` ($GATELAB_HOME/ray), on the CPU, in its own temp folder, every
// port chosen free, started with `--block` in its own process group so that
// stopping it ends exactly the processes it started (never `ray stop`, which
// would end every Ray on the machine).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import path from 'node:path';
import { RayJobsClient } from '../../src/remote/ray/rayJobsClient';

export function rayEnvironment(): { python: string; ray: string } | null {
  const home = process.env.GATELAB_HOME || path.join(homedir(), '.cache', 'gatelab');
  const bin = path.join(home, 'ray', 'bin');
  const python = path.join(bin, 'python');
  const ray = path.join(bin, 'ray');
  return existsSync(ray) && existsSync(path.join(home, 'ray', '.gatelab-requirements.sha256')) ? { python, ray } : null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export type RayHead = { address: string; python: string; client: RayJobsClient; log: string[]; stop(): Promise<void> };

export async function startRayHead(options: { numCpus: number }): Promise<RayHead> {
  const env = rayEnvironment();
  if (!env) throw new Error('no Ray environment: run `npm run setup:ray`');
  // Short: Ray's unix sockets live under it and their paths are limited to about 100 characters.
  const tempDir = await mkdtemp('/tmp/glray-');
  const ports: Record<string, number> = {};
  for (const name of [
    'port',
    'dashboard-port',
    'ray-client-server-port',
    'dashboard-agent-listen-port',
    'dashboard-agent-grpc-port',
    'node-manager-port',
    'object-manager-port',
    'metrics-export-port',
    'runtime-env-agent-port',
  ]) {
    ports[name] = await freePort();
  }
  // Worker ports: a block of 51 above a free port that holds none of the ports chosen above (Ray refuses an overlap).
  let workerBase = Math.min(await freePort(), 65000);
  while (Object.values(ports).some((port) => port >= workerBase && port <= workerBase + 50)) workerBase = Math.min(await freePort(), 65000);
  const args = [
    'start',
    '--head',
    '--block',
    '--node-ip-address=127.0.0.1',
    '--dashboard-host=127.0.0.1',
    `--num-cpus=${options.numCpus}`,
    '--num-gpus=0',
    `--temp-dir=${tempDir}`,
    '--include-dashboard=true',
    '--disable-usage-stats',
    ...Object.entries(ports).map(([name, port]) => `--${name}=${port}`),
    `--min-worker-port=${workerBase}`,
    `--max-worker-port=${workerBase + 50}`,
  ];
  const log: string[] = [];
  const child: ChildProcess = spawn(env.ray, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, RAY_USAGE_STATS_ENABLED: '0' },
  });
  for (const stream of [child.stdout, child.stderr]) stream?.on('data', (chunk: Buffer) => log.push(...chunk.toString().split('\n').filter(Boolean)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const address = `http://127.0.0.1:${ports['dashboard-port']}`;
  const client = new RayJobsClient(address, 5000);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      // The --block process stops the head's processes on SIGTERM; the group kill is the backstop.
      process.kill(-child.pid, 'SIGTERM');
      const done = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 20_000))]);
      if (!done) process.kill(-child.pid, 'SIGKILL');
    }
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // the group is gone
    }
    await rm(tempDir, { recursive: true, force: true });
  };
  // Ready when the job API answers (the dashboard starts after the GCS and raylet).
  for (let tries = 0; ; tries += 1) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`ray start exited with ${child.exitCode}:\n${log.slice(-20).join('\n')}`);
    }
    try {
      await client.version();
      break;
    } catch (error) {
      if (tries > 240) {
        await stop();
        throw new Error(`the Ray head did not answer within 2 minutes: ${(error as Error).message}\n${log.slice(-20).join('\n')}`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  return { address, python: env.python, client, log, stop };
}
