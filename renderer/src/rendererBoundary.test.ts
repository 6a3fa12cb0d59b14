import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const srcDir = fileURLToPath(new URL('.', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

// Nothing in renderer imports Node, Electron, or the lab core; it
// reaches the lab only through the contract (LabApi over IPC or HTTP).
describe('the renderer boundary', () => {
  const files = sourceFiles(srcDir);
  const imports = files.flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/from\s+'([^']+)'/g)].map((match) => ({ file: relative(srcDir, file), spec: match[1] ?? '' })),
  );

  test('it has sources to check', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  test('no Node built-ins, no electron, no lab internals', () => {
    const offending = imports.filter(
      ({ spec }) =>
        spec.startsWith('node:') || ['fs', 'path', 'child_process', 'os', 'crypto', 'electron', 'ws'].includes(spec) || /\/src\/(?!contract(\/|$))/.test(spec),
    );
    expect(offending).toEqual([]);
  });
});
