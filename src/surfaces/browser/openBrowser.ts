import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Why the URL was or was not opened, for the start-up message. */
export type OpenBrowserOutcome = { opened: true; command: string } | { opened: false; reason: string };

/** The first executable named `name` on PATH, or null. */
export function findOnPath(name: string, pathVariable = process.env.PATH ?? ''): string | null {
  for (const dir of pathVariable.split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * The command that opens a URL in the person's default browser on this
 * platform, as an argument array (never a shell string), or why there is
 * none.
 */
export function browserOpener(
  url: string,
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): { command: string; args: string[] } | { reason: string } {
  switch (platform) {
    case 'linux':
    case 'freebsd':
    case 'openbsd': {
      if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return { reason: 'no graphical session (DISPLAY and WAYLAND_DISPLAY are unset)' };
      const xdgOpen = findOnPath('xdg-open', env.PATH);
      return xdgOpen === null ? { reason: 'xdg-open is not installed' } : { command: xdgOpen, args: [url] };
    }
    case 'darwin':
      return { command: 'open', args: [url] };
    case 'win32':
      return { command: 'explorer.exe', args: [url] };
    default:
      return { reason: `no known way to open a browser on ${platform}` };
  }
}

export function openInBrowser(url: string): OpenBrowserOutcome {
  const opener = browserOpener(url);
  if ('reason' in opener) return { opened: false, reason: opener.reason };
  try {
    const child = spawn(opener.command, opener.args, { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
    return { opened: true, command: opener.command };
  } catch (error) {
    return { opened: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
