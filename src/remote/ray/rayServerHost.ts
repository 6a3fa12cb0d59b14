/**
 * A RemoteServerHost (serverProcess.ts) whose every launch is a server
 * actor of the run's Ray job: a loopback port on this host that reaches the
 * current launch's server (loopbackTunnel.ts), and folders the lab staged
 * placed in the actor's scratch folder through the object store, never by a
 * path the node cannot see.
 *
 * One host per engine: the port stays the same across restarts (each launch
 * attaches to the same tunnel), so the client's URL never changes; a folder
 * placed for one launch is placed again for the next (its scratch is new).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { RemoteServerHost } from '../../processes/serverProcess';
import { LoopbackTunnel } from './loopbackTunnel';
import { RayRoleProcess, type RayRoleLaunch } from './rayRole';

export function rayServerHost(launch: Omit<RayRoleLaunch, 'tunnel' | 'hooks'>): RemoteServerHost {
  let current: RayRoleProcess | undefined;
  let log: ((line: string) => void) | undefined;
  const tunnel = new LoopbackTunnel((line) => log?.(line));
  return {
    port: () => tunnel.port(),
    launch: (spec) => {
      log = (line) => spec.onLine(`[${spec.name}] ${line}`, 'stderr');
      const role = { name: spec.name, argv: [spec.command, ...spec.args], env: { ...spec.env }, mode: 'server' as const };
      const worker = new RayRoleProcess({ ...launch, tunnel }, role, { name: spec.name, onLog: spec.onLine });
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
      const entries = await readdir(localDir, { withFileTypes: true });
      const names = entries
        .filter((e) => e.isFile())
        .map((e) => e.name)
        .sort();
      const files = await Promise.all(names.map(async (name) => [name, await readFile(path.join(localDir, name))] as const));
      // Named by content: the same folder twice is the same place, a changed one a new place.
      const digest = createHash('sha256');
      for (const [name, bytes] of files) digest.update(name).update('\0').update(bytes);
      const folder = `folders/${path.basename(localDir).replace(/[^A-Za-z0-9._-]/g, '_')}-${digest.digest('hex').slice(0, 16)}`;
      return (await worker.files()).place(folder, files);
    },
    close: () => tunnel.close(),
  };
}
