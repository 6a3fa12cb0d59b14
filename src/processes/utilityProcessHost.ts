/**
 * The seam through which Electron's `utilityProcess` reaches the lab without
 * the lab importing `electron`: src/surfaces/electronMain calls
 *
 *   registerUtilityProcessFork((modulePath, args, options) =>
 *     utilityProcess.fork(modulePath, args, options));
 *
 * at startup, and the supervisor starts Node workers with it from then on.
 * The types below are the subset of Electron's UtilityProcess we use.
 */
import type { Readable } from 'node:stream';

export interface UtilityProcessLike {
  readonly pid?: number | undefined;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  postMessage(message: unknown): void;
  on(event: 'message', listener: (message: unknown) => void): this;
  on(event: 'exit', listener: (code: number) => void): this;
  kill(): boolean;
}

export interface UtilityForkOptions {
  readonly env: Record<string, string | undefined>;
  readonly stdio: 'pipe';
  readonly serviceName: string;
}

export type UtilityProcessFork = (modulePath: string, args: string[], options: UtilityForkOptions) => UtilityProcessLike;

let registered: UtilityProcessFork | undefined;

export function registerUtilityProcessFork(fork: UtilityProcessFork | undefined): void {
  registered = fork;
}

export function utilityProcessFork(): UtilityProcessFork | undefined {
  return registered;
}
