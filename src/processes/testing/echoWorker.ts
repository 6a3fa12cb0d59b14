/**
 * A worker for the supervisor's own tests (a real process, not a mock):
 * echoes, sleeps, streams progress, crashes or misbehaves on request.
 */
import { serveWorker, WorkerError } from '../serveWorker';
import { echoProtocol } from './echoProtocol';

if (process.env.ECHO_WORKER_CRASH_AT_START === '1') process.exit(7);

serveWorker(echoProtocol, {
  echo: ({ text }) => ({ text, pid: process.pid }),
  sleep: async ({ ms }) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { slept: ms };
  },
  count: ({ to }, { progress }) => {
    for (let n = 1; n <= to; n += 1) progress({ n });
    return { done: true as const };
  },
  crash: ({ code }) => {
    console.error('about to crash on purpose');
    process.exit(code);
  },
  fail: () => {
    throw new WorkerError('no_luck', 'failed on purpose');
  },
  lie: () => ({ text: 42 }) as unknown as { text: string },
});
