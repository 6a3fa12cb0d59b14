/**
 * A RemoteServerHost (serverProcess.ts) whose every launch is a connector in
 * server mode (a Ray job, or a local connector in tests): a loopback port on
 * this host that reaches the current launch's server (loopbackTunnel.ts),
 * and folders the lab staged uploaded by content into the launch's scratch
 * folder, never by a path the node cannot see.
 *
 * One host per engine: the port stays the same across restarts (each launch
 * attaches to the same tunnel), so the client's URL never changes; a folder
 * placed for one launch is placed again for the next (its scratch is new).
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { LaunchOptions } from '../processes/workerProcess';
import type { WorkerEntry } from '../processes/workerEntry';
import type { RemoteServerHost } from '../processes/serverProcess';
import { LoopbackTunnel } from './loopbackTunnel';
import type { RemoteWorkerProcess } from './remoteWorkerProcess';

/** Starts one connector in server mode for `entry`, its streams on `tunnel` (submitRayJob, or a local connector in tests). */
export type ServerConnectorStart = (entry: WorkerEntry, options: LaunchOptions, tunnel: LoopbackTunnel) => RemoteWorkerProcess;

export function remoteServerHost(start: ServerConnectorStart): RemoteServerHost {
  let current: RemoteWorkerProcess | undefined;
  let log: ((line: string) => void) | undefined;
  const tunnel = new LoopbackTunnel((line) => log?.(line));
  return {
    port: () => tunnel.port(),
    launch: (spec) => {
      log = (line) => spec.onLine(`[${spec.name}] ${line}`, 'stderr');
      const entry: WorkerEntry = { kind: 'process', command: spec.command, args: [...spec.args], env: { ...spec.env } };
      const worker = start(entry, { name: spec.name, onLog: spec.onLine }, tunnel);
      current = worker;
      const exited = new Promise<string>((resolve) => {
        worker.onExit((exit) => resolve(exit.error ?? `${spec.name} exited (${exit.signal ?? `code ${exit.code}`})`));
      });
      return {
        pid: undefined,
        label: worker.label,
        exited,
        get running() {
          return !worker.exited;
        },
        signal: (signal) => worker.kill(signal),
      };
    },
    async placeFolder(localDir) {
      const worker = current;
      if (!worker || worker.exited) throw new Error(`no running launch to give ${localDir} to`);
      const files = await worker.remoteFiles();
      const names = (await readdir(localDir, { withFileTypes: true }))
        .filter((e) => e.isFile())
        .map((e) => e.name)
        .sort();
      const contents = await Promise.all(names.map((name) => readFile(path.join(localDir, name))));
      // Named by content: the same folder twice is the same place, a changed one a new place.
      const digest = createHash('sha256');
      names.forEach((name, i) =>
        digest
          .update(name)
          .update('\0')
          .update(contents[i] as Buffer),
      );
      const relative = `folders/${path.basename(localDir).replace(/[^A-Za-z0-9._-]/g, '_')}-${digest.digest('hex').slice(0, 16)}`;
      for (const [i, name] of names.entries()) await files.put(`${relative}/${name}`, contents[i] as Buffer);
      return path.posix.join(files.scratch, relative);
    },
    close: () => tunnel.close(),
  };
}
