/**
 * The Python the connector's tests run it with: one with its packages (aiohttp)
 * — GATELAB_TEST_PYTHON, or the Ray environment `npm run setup:ray` makes —
 * and null where there is none (the tests say so and skip).
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

export function connectorPython(): string | null {
  if (process.env.GATELAB_TEST_PYTHON) return process.env.GATELAB_TEST_PYTHON;
  const python = path.join(process.env.GATELAB_HOME || path.join(homedir(), '.cache', 'gatelab'), 'ray', 'bin', 'python');
  return existsSync(python) ? python : null;
}
