import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPO_ASSETS_DIR } from '../src/contract/testing/contractSuite';

const require = createRequire(import.meta.url);
const config = require('../electron-builder.config.cjs') as {
  electronFuses: Record<string, boolean>;
  asar: boolean;
  asarUnpack: string[];
  files: string[];
  linux: { target: string[]; icon: string };
  electronDist: string;
};

describe('electron-builder configuration', () => {
  test("passes electron-builder's own schema (and a wrong key would not)", async () => {
    const { validateConfiguration } = require('app-builder-lib/out/util/config/config') as {
      validateConfiguration(config: unknown, logger: unknown): Promise<void>;
    };
    const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
    await expect(validateConfiguration({ ...config, electronFusez: {} }, new DebugLogger(false))).rejects.toThrow();
  });

  test('fuses: RunAsNode and NODE_OPTIONS off, ASAR integrity on, app only from ASAR', () => {
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  test('ASAR on, with onnxruntime-node unpacked (a native addon)', () => {
    expect(config.asar).toBe(true);
    expect(config.asarUnpack).toContain('node_modules/onnxruntime-node/**');
  });

  test('Linux AppImage and deb, with icons that exist', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(existsSync(join(REPO_ASSETS_DIR, 'icons', 'linux', '512x512.png'))).toBe(true);
  });

  test('it packs the built app and its assets, not sources or source maps', () => {
    expect(config.files).toEqual(expect.arrayContaining(['dist/**/*', '!dist/**/*.map', 'assets/**/*']));
    expect(config.files.some((pattern) => pattern.startsWith('electron/') || pattern.startsWith('renderer/'))).toBe(false);
    expect(config.electronDist).toBe('node_modules/electron/dist');
  });
});
