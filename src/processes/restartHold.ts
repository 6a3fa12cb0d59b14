/**
 * A test's barrier on worker restarts, for end-to-end tests that must see a
 * crashed worker *while* its supervisor restarts it (not hope to catch a
 * 250 ms window): with GATELAB_TEST_HOLD_RESTARTS=<dir> in the lab's
 * environment, the restart of a worker waits until the file
 * `<dir>/release-<role>-<restarts>` exists (restarts counts this one, so
 * each crash has its own release). Off unless that variable is set.
 */
import { access } from 'node:fs/promises';
import path from 'node:path';
import type { WorkerRegistry } from './workerRegistry';

export const HOLD_RESTARTS_ENV = 'GATELAB_TEST_HOLD_RESTARTS';

export function releaseFileName(role: string, restarts: number): string {
  return `release-${role}-${restarts}`;
}

/** Installs the barrier when the environment asks for it; returns whether it did. */
export function holdRestartsFromEnv(registry: WorkerRegistry, env: NodeJS.ProcessEnv = process.env, pollMs = 100): boolean {
  const dir = env[HOLD_RESTARTS_ENV];
  if (dir === undefined || dir === '') return false;
  registry.holdRestarts(async (worker, cancelled) => {
    const file = path.join(dir, releaseFileName(worker.role, worker.restarts));
    while (!cancelled.aborted) {
      try {
        await access(file);
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    }
  });
  return true;
}
