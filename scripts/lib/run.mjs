import { spawn } from 'node:child_process';

/**
 * Runs a command with an argument array (never a shell string) and resolves
 * with its exit code; output goes to this terminal unless `capture` is set.
 * @param {string} command
 * @param {readonly string[]} args
 * With `forwardSignals`, SIGINT/SIGTERM/SIGHUP sent to this process go on to
 * the child (so stopping `npm start` stops the server or window it started).
 * @param {{ env?: NodeJS.ProcessEnv, cwd?: string, capture?: boolean, timeoutMs?: number, forwardSignals?: boolean }} [options]
 * @returns {Promise<{ code: number, output: string, timedOut: boolean }>}
 */
export function run(command, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: options.capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    });
    let output = '';
    let timedOut = false;
    const signals = options.forwardSignals ? ['SIGINT', 'SIGTERM', 'SIGHUP'] : [];
    const forward = (signal) => child.kill(signal);
    for (const signal of signals) process.on(signal, forward);
    const stopForwarding = () => {
      for (const signal of signals) process.off(signal, forward);
    };
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    const timer =
      options.timeoutMs === undefined
        ? null
        : setTimeout(() => {
            timedOut = true;
            child.kill('SIGTERM');
          }, options.timeoutMs);
    child.on('error', (error) => {
      if (timer) clearTimeout(timer);
      stopForwarding();
      resolve({ code: 127, output: output + String(error), timedOut });
    });
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      stopForwarding();
      resolve({ code: code ?? (signal ? 128 : 1), output, timedOut });
    });
  });
}

/** npm's executable name on this platform. */
export const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
