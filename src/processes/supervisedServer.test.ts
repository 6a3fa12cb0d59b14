import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freeLoopbackPort, SupervisedServer } from './supervisedServer';
import type { WorkerState } from './supervisedWorker';
import { WorkerRegistry } from './workerRegistry';

const script = fileURLToPath(new URL('./testing/healthServer.mjs', import.meta.url));

async function pidOf(port: number): Promise<number> {
  return Number(await (await fetch(`http://127.0.0.1:${port}/health`)).text());
}

describe('SupervisedServer', () => {
  it('starts an HTTP server with an argument array, waits for its health, restarts it after a crash with its setup replayed, and stops it', async () => {
    const port = await freeLoopbackPort();
    const registry = new WorkerRegistry();
    const states: WorkerState[] = [];
    let setups = 0;
    let restarted: () => void = () => undefined;
    const backUp = new Promise<void>((resolve) => (restarted = resolve));
    const server = new SupervisedServer({
      name: 'test-server',
      command: process.execPath,
      args: () => [script, String(port), '300'],
      healthUrl: `http://127.0.0.1:${port}/health`,
      startTimeoutMs: 30_000,
      restartDelayMs: 10,
      registry,
      describe: { role: 'serving' },
      setup: async () => {
        setups += 1;
        if (setups === 2) restarted();
      },
      onStateChange: (state) => states.push(state),
    });
    await server.start();
    expect(server.state).toBe('running');
    const first = await pidOf(port);
    expect(first).toBe(server.pid);
    expect(registry.list().find((w) => w.name === 'test-server')).toMatchObject({ role: 'serving', state: 'running', kind: 'process' });

    process.kill(first, 'SIGKILL');
    await backUp;
    await server.ready();
    expect(server.state).toBe('running');
    expect(await pidOf(port)).not.toBe(first);
    expect(states).toEqual(['starting', 'running', 'restarting', 'running']);

    await server.shutdown();
    expect(server.state).toBe('stopped');
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
    await expect(server.ready()).rejects.toMatchObject({ code: 'not_running' });
  }, 60_000);

  it('fails closed when the program cannot start', async () => {
    const server = new SupervisedServer({
      name: 'missing',
      command: '/nonexistent/python',
      args: () => [],
      healthUrl: 'http://127.0.0.1:9/health',
      maxRestarts: 0,
      registry: new WorkerRegistry(),
    });
    await expect(server.start()).rejects.toMatchObject({ code: expect.stringMatching(/start_failed|not_running/) });
    expect(server.state).toBe('failed');
    await server.shutdown();
  }, 30_000);
});
