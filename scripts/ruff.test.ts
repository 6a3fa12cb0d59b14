import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
// @ts-expect-error plain .mjs helper of the scripts (no type declarations)
import { parseTomlSubset as untypedParse } from './lib/tomlSubset.mjs';

const parseTomlSubset = untypedParse as (text: string, name: string) => Record<string, unknown>;
const repoRoot = join(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'gatelab-ruff-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs scripts/ruff.mjs on one new file holding `source`. */
function ruff(args: string[], name: string, source: string) {
  const file = join(dir, name);
  writeFileSync(file, source);
  const result = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'ruff.mjs'), ...args, file], { cwd: repoRoot, encoding: 'utf8' });
  return { code: result.status, output: result.stdout + result.stderr, file };
}

// Each run compiles ruff's WebAssembly afresh (about a second alone, several on a busy machine).
describe('scripts/ruff.mjs (ruff through its WebAssembly build, with ruff.toml)', { timeout: 120_000 }, () => {
  test('check: an unused import and unsorted imports are findings (exit 1); clean code passes (exit 0)', () => {
    const dirty = ruff(['check'], 'dirty.py', 'import sys\nimport json\n\nprint(json.dumps(1))\n');
    expect(dirty.code).toBe(1);
    expect(dirty.output).toMatch(/dirty\.py:1:1: I001/);
    expect(dirty.output).toMatch(/dirty\.py:1:8: F401 \[\*\] `sys` imported but unused/);
    const clean = ruff(['check'], 'clean.py', 'import json\n\nprint(json.dumps(1))\n');
    expect(clean.output).toContain('all checks passed');
    expect(clean.code).toBe(0);
  });

  test("check: the repository's own modules sort after third-party ones (ruff.toml's known-first-party)", () => {
    const result = ruff(['check'], 'sections.py', 'import torch\n\nfrom gatelab_torch.policy import Policy\n\nprint(torch, Policy)\n');
    expect(result.output).toContain('all checks passed');
  });

  test('check: a line over 120 columns is a finding', () => {
    const result = ruff(['check'], 'long.py', `x = "${'a'.repeat(130)}"\n`);
    expect(result.output).toMatch(/long\.py:1:121: E501/);
    expect(result.code).toBe(1);
  });

  test('format --check names what it would change and leaves it; format rewrites it; then --check passes', () => {
    const source = "x = {  'a':1 }\n";
    const checked = ruff(['format', '--check'], 'style.py', source);
    expect(checked.code).toBe(1);
    expect(checked.output).toContain('Would reformat:');
    expect(readFileSync(checked.file, 'utf8')).toBe(source);
    const formatted = ruff(['format'], 'style.py', source);
    expect(formatted.code).toBe(0);
    expect(readFileSync(formatted.file, 'utf8')).toBe('x = {"a": 1}\n');
    expect(ruff(['format', '--check'], 'style.py', 'x = {"a": 1}\n').code).toBe(0);
  });

  test('a file the formatter cannot parse fails with exit 2 and says why', () => {
    const result = ruff(['format', '--check'], 'broken.py', 'def f(:\n    pass\n');
    expect(result.code).toBe(2);
    expect(result.output).toContain('broken.py: cannot be formatted');
  });

  test('an unknown command is a usage error (exit 2)', () => {
    expect(ruff(['lint'], 'any.py', 'x = 1\n').code).toBe(2);
  });
});

describe('scripts/lib/tomlSubset.mjs (ruff.toml without a TOML package)', () => {
  test('reads ruff.toml: top-level keys, nested tables, arrays over several lines', () => {
    const settings = parseTomlSubset(readFileSync(join(repoRoot, 'ruff.toml'), 'utf8'), 'ruff.toml');
    expect(settings).toMatchObject({ 'line-length': 120, 'target-version': 'py311', lint: { select: ['E', 'F', 'W', 'I'] } });
    expect((settings.lint as { isort: { 'known-first-party': string[] } }).isort['known-first-party']).toContain('gatelab_torch');
  });

  test('strings keep a # inside them; comments go; booleans and integers are typed', () => {
    expect(parseTomlSubset('a = "x # y"  # note\nb = true\nc = -3\nd = [\'p\', "q",]\n', 't.toml')).toEqual({ a: 'x # y', b: true, c: -3, d: ['p', 'q'] });
  });

  test('what it cannot read is an error naming the line, never a setting dropped', () => {
    expect(() => parseTomlSubset('a = 1\nb = { c = 2 }\n', 't.toml')).toThrow(/t\.toml:2: cannot read the value/);
    expect(() => parseTomlSubset('a = 1\na = 2\n', 't.toml')).toThrow(/t\.toml:2: a is set twice/);
    expect(() => parseTomlSubset('a = [1,\n2\n', 't.toml')).toThrow(/an array that never closes/);
  });
});
