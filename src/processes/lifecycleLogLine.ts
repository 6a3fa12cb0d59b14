/**
 * A worker's crash or restart as one line a person reads in the lab log (the
 * desktop's log panel, the CLI's stderr): which role, which pid, why it
 * ended, whether its supervisor starts it again, and the last lines it wrote
 * to stderr (the rest is in the worker's log file in the run folder).
 */
import type { WorkerLifecycleEvent } from './workerRegistry';

const withoutPrefix = (text: string, prefix: string): string => (text.startsWith(prefix) ? text.slice(prefix.length) : text);

/** One line of the lab log for a worker's exit or restart: the role, the pid, why, and what it said last. */
export function lifecycleLogLine(event: WorkerLifecycleEvent): { level: 'error' | 'info'; message: string } {
  const { worker } = event;
  switch (event.kind) {
    case 'exited': {
      const who = `${worker.role} worker${event.pid === null ? '' : ` (pid ${event.pid})`}`;
      // The supervisor's reason names its worker ("worker engine was killed by SIGKILL"): say it once, by role.
      const why = withoutPrefix(withoutPrefix(event.reason, `worker ${worker.name} `), `${worker.name} `);
      const next = event.restarting ? `its supervisor restarts it (restart ${worker.restarts})` : 'not restarted: the worker has failed';
      const said = event.stderrTail.length === 0 ? 'it wrote nothing to stderr' : `last stderr: ${event.stderrTail.join(' ⏎ ')}`;
      return { level: 'error', message: `${who} ${why}; ${next}. ${said}` };
    }
    case 'restarted':
      return {
        level: 'info',
        message: `${worker.role} worker restarted (restart ${worker.restarts}): pid ${worker.pid ?? 'not known yet'}${worker.command === null ? '' : `, ${worker.command}`}`,
      };
    default: {
      const unreachable: never = event;
      throw new Error(`unknown worker event ${JSON.stringify(unreachable)}`);
    }
  }
}
