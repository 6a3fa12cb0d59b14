// How a launch follows its Ray job, against a stand-in for the dashboard's
// job API (a test double: a local HTTP server with the documented paths):
// the submission carries the actor's resources and the connector's packages
// and reserves nothing itself; the log comes through the tail endpoint, and
// when the tail ends while the job runs it is opened again without showing a
// line twice; the job's terminal status is the worker's exit.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { controlHub } from '../controlHub';
import { rayJobLauncher } from './rayJobWorker';
import type { WorkerExit } from '../../processes/workerProcess';

const control = { bind: '127.0.0.1', port: 0 };
afterAll(async () => {
  await controlHub(control).close();
});

it('submits the role as an actor, shows each log line once across a dropped tail, and exits with the terminal status', { timeout: 30_000 }, async () => {
  const submitted: Array<Record<string, unknown>> = [];
  let tails = 0;
  let status = 'RUNNING';
  const server = http.createServer((req, res) => {
    const reply = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/api/jobs/') {
        submitted.push(JSON.parse(body) as Record<string, unknown>);
        return reply({ submission_id: (submitted[0] as { submission_id: string }).submission_id });
      }
      if (req.method === 'GET' && req.url?.startsWith('/api/jobs/'))
        return reply({ status, message: status === 'FAILED' ? 'the driver exited with 3' : null, driver_exit_code: 3 });
      res.writeHead(404).end();
    });
  });
  // The tail sends the log from its start each time: the first ends mid-line while the job runs, the second after the job.
  const tailServer = new WebSocketServer({ server });
  tailServer.on('connection', (ws) => {
    tails += 1;
    if (tails === 1) {
      ws.send('one\ntw');
      ws.close();
    } else {
      status = 'FAILED';
      ws.send('one\ntwo\nthree\n');
      ws.close();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const lines: string[] = [];
    const launch = rayJobLauncher({ address, python: '/opt/ray/bin/python', control, role: 'trainer', actor: { num_cpus: 2, num_gpus: 1 }, env: { A: 'b' } });
    const worker = launch({ kind: 'process', command: 'python3', args: ['-m', 'trainer'], env: {} }, { name: 'trainer', onLog: (line) => lines.push(line) });
    const exit = await new Promise<WorkerExit>((resolve) => worker.onExit(resolve));
    expect(exit).toMatchObject({ code: 3, error: expect.stringMatching(/FAILED: the driver exited with 3$/) });
    expect(lines.filter((l) => !l.startsWith('[trainer]'))).toEqual(['one', 'two', 'three']);
    expect(tails).toBe(2);
    const job = submitted[0] as { entrypoint: string; runtime_env: { env_vars: Record<string, string>; pip: string[] } } & Record<string, unknown>;
    expect(job.entrypoint).toMatch(/^'\/opt\/ray\/bin\/python' '-c' /);
    expect(JSON.parse(job.runtime_env.env_vars.GATELAB_ACTOR_OPTIONS as string)).toEqual({ num_cpus: 2, num_gpus: 1 });
    expect(JSON.parse(job.runtime_env.env_vars.GATELAB_WORKER_ARGV as string)).toEqual(['python3', '-m', 'trainer']);
    expect(job.runtime_env.pip).toEqual([expect.stringMatching(/^aiohttp==/)]);
    // The driver reserves nothing: the actor holds the role's resources.
    expect(Object.keys(job).filter((k) => k.startsWith('entrypoint_'))).toEqual([]);
  } finally {
    tailServer.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
