// Browser mode: the lab core and the renderer served on 127.0.0.1, for
// machines without an Electron binary. Built to dist/lab/browser.js;
// `npm start` runs it when it cannot open an Electron window.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createLabCore } from '../../lab/labCore';
import { holdRestartsFromEnv, HOLD_RESTARTS_ENV } from '../../processes/restartHold';
import { workerRegistry } from '../../processes/workerRegistry';
import { openInBrowser } from './openBrowser';
import { startLabServer } from './server';

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    'no-open': { type: 'boolean', default: false },
  },
});

// dist/lab/browser.js → the repository (or install) root.
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

const portText = values.port ?? process.env.GATELAB_PORT ?? '0';
const port = Number(portText);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`GateLab: the port must be an integer from 0 to 65535, got "${portText}"`);
  process.exit(2);
}

if (holdRestartsFromEnv(workerRegistry)) console.log(`${HOLD_RESTARTS_ENV} is set: worker restarts wait for their release file (a test's barrier).`);
const core = createLabCore({ assetsDir: join(root, 'assets'), version, mode: 'browser' });
const server = await startLabServer({
  handlers: core.handlers,
  events: core.events,
  rendererDir: join(root, 'dist', 'renderer'),
  port,
});

console.log(`GateLab ${version} — browser mode, serving on 127.0.0.1 only (port ${server.port}).`);
console.log(`Open: ${server.url}`);
// One machine-readable line for scripts and the e2e tests.
console.log(`GATELAB_URL=${server.url}`);
if (values['no-open'] || process.env.GATELAB_NO_OPEN === '1') {
  console.log('Not opening a browser (--no-open).');
} else {
  const outcome = openInBrowser(server.url);
  console.log(outcome.opened ? `Opened it with ${outcome.command}.` : `Not opened automatically: ${outcome.reason}. Open the URL above.`);
}
console.log('Press Ctrl+C to stop.');

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  // Close the run first: its workers stop and its journal is flushed before the port goes.
  Promise.all([core.close(), server.close()]).then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
