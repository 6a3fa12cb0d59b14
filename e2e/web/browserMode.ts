import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../paths';

export interface BrowserMode {
  child: ChildProcess;
  /** The URL with the launch token, as printed. */
  url: string;
  output: () => string;
}

/**
 * Starts the real browser-mode server (dist/lab/browser.js, as `npm start`
 * does without Electron) on a random port with `env` added to this
 * process's environment, and reads the URL it prints.
 */
export async function startBrowserMode(env: Record<string, string> = {}): Promise<BrowserMode> {
  const entry = join(REPO_ROOT, 'dist', 'lab', 'browser.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first`);
  const child = spawn(process.execPath, [entry, '--no-open', '--port', '0'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GATELAB_NO_OPEN: '1', ...env },
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`browser mode did not print its URL in 20 s:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /^GATELAB_URL=(\S+)$/m.exec(output);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`browser mode exited with ${code}:\n${output}`));
    });
  });
  return { child, url, output: () => output };
}
