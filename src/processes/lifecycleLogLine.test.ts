import { describe, expect, it } from 'vitest';
import { lifecycleLogLine } from './lifecycleLogLine';
import type { WorkerSnapshot } from './workerRegistry';

const worker = (over: Partial<WorkerSnapshot> = {}): WorkerSnapshot => ({
  id: 'w1',
  role: 'probe',
  name: 'engine',
  kind: 'node',
  command: 'node engine.js',
  pid: null,
  gpus: null,
  nice: null,
  state: 'restarting',
  detail: null,
  restarts: 1,
  startedAt: null,
  stateSince: 0,
  lastExit: null,
  log: [],
  ...over,
});

describe('a worker crash or restart as a lab log line', () => {
  it('names the role and pid once, says why and what happens next, and quotes the last stderr lines', () => {
    expect(
      lifecycleLogLine({ kind: 'exited', worker: worker(), pid: 42, reason: 'worker engine was killed by SIGKILL', restarting: true, stderrTail: ['a', 'b'] }),
    ).toEqual({ level: 'error', message: 'probe worker (pid 42) was killed by SIGKILL; its supervisor restarts it (restart 1). last stderr: a ⏎ b' });
    expect(
      lifecycleLogLine({
        kind: 'exited',
        worker: worker({ role: 'serving', name: 'serving-engine', restarts: 3 }),
        pid: null,
        reason: 'serving-engine exited (code 1)',
        restarting: false,
        stderrTail: [],
      }),
    ).toEqual({ level: 'error', message: 'serving worker exited (code 1); not restarted: the worker has failed. it wrote nothing to stderr' });
  });

  it('says a restart with its new pid and program', () => {
    expect(lifecycleLogLine({ kind: 'restarted', worker: worker({ pid: 43, state: 'starting' }) })).toEqual({
      level: 'info',
      message: 'probe worker restarted (restart 1): pid 43, node engine.js',
    });
    expect(lifecycleLogLine({ kind: 'restarted', worker: worker({ pid: null, command: null }) }).message).toBe(
      'probe worker restarted (restart 1): pid not known yet',
    );
  });
});
