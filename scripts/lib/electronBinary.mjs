import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Where the Electron binary is, or why there is none. Reads what electron's
 * own install script leaves behind (node_modules/electron/path.txt and
 * dist/), without requiring the package, which throws when the download was
 * skipped.
 * @returns {{ path: string, version: string } | { path: null, reason: string }}
 */
export function findElectronBinary() {
  const require = createRequire(import.meta.url);
  let packageDir;
  try {
    packageDir = dirname(require.resolve('electron/package.json'));
  } catch {
    return { path: null, reason: 'the electron package is not installed (run the set-up)' };
  }
  const version = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')).version;
  const pathFile = join(packageDir, 'path.txt');
  if (!existsSync(pathFile)) {
    return {
      path: null,
      reason: `electron ${version} has no binary: its download was skipped or failed (node_modules/electron/path.txt is missing)`,
    };
  }
  const relative = readFileSync(pathFile, 'utf8').trim();
  const distDir = process.env.ELECTRON_OVERRIDE_DIST_PATH || join(packageDir, 'dist');
  const binary = join(distDir, relative);
  if (!existsSync(binary)) return { path: null, reason: `electron's binary is missing at ${binary}` };
  return { path: binary, version };
}

/**
 * Whether an Electron window can be shown here: a binary, and on Linux a
 * display (X11 or Wayland).
 * @returns {{ ok: true, binary: string, version: string } | { ok: false, reason: string }}
 */
export function electronAvailability(env = process.env, platform = process.platform) {
  const found = findElectronBinary();
  if (found.path === null) return { ok: false, reason: found.reason };
  if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    return { ok: false, reason: `electron ${found.version} is installed, but there is no display (DISPLAY and WAYLAND_DISPLAY are unset)` };
  }
  return { ok: true, binary: found.path, version: found.version };
}
