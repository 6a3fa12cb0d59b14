/**
 * A stand-in lab for the group watcher's test (a real process, not a mock):
 * starts one worker in its own process group the way the lab does — a worker
 * that ignores SIGTERM and its stdin's end, with a helper process of its own
 * — reports it to the watcher, prints the pids as one JSON line, and waits to
 * be killed.
 */
import { spawn } from 'node:child_process';
import { processGroupReaper, watchGroup } from '../processGroupReaper';

const stubborn = `
process.on('SIGTERM', () => undefined);
const helper = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1000)'], { stdio: 'ignore' });
console.log(JSON.stringify({ helper: helper.pid }));
setInterval(() => undefined, 1000);
`;

const worker = spawn(process.execPath, ['-e', stubborn], { stdio: ['pipe', 'pipe', 'inherit'], detached: true });
watchGroup(worker);
worker.stdout?.once('data', (chunk: Buffer) => {
  const { helper } = JSON.parse(chunk.toString()) as { helper: number };
  console.log(JSON.stringify({ worker: worker.pid, helper, watcher: processGroupReaper.pid }));
});
setInterval(() => undefined, 1000);
