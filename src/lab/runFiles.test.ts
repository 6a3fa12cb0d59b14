import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPO_ASSETS_DIR } from '../contract/testing/contractSuite';
import { classifyRunFile, loadRunFromTexts } from './runFiles';
import { labErrorOf } from './testing/labErrorOf';

const dir = join(REPO_ASSETS_DIR, 'reference', '2026-09-14-qwen3.5-9b-gated');
const curve = readFileSync(join(dir, 'curve.csv'), 'utf8');
const gate = readFileSync(join(dir, 'gate.csv'), 'utf8');
const source = { kind: 'files' as const, id: 'files:test', title: 'test' };

describe('loading a run from file texts', () => {
  test('files are told apart by header, whatever their names', () => {
    expect(classifyRunFile({ name: 'x.csv', text: curve })).toBe('curve');
    expect(classifyRunFile({ name: 'curve.csv', text: gate })).toBe('gate');
    expect(classifyRunFile({ name: 'bom.csv', text: `\uFEFF${curve}` })).toBe('curve');
    expect(labErrorOf(() => classifyRunFile({ name: 'n.csv', text: '' })).details).toMatchObject({ file: 'n.csv', line: 1 });
  });

  test('CRLF line ends load the same run', () => {
    const a = loadRunFromTexts([{ name: 'curve.csv', text: curve }], source);
    const b = loadRunFromTexts([{ name: 'curve.csv', text: curve.replaceAll('\n', '\r\n') }], source);
    expect(b.sessions).toEqual(a.sessions);
  });

  test('a cell that is not a number names its line and column', () => {
    const bad = curve.replace('\n12,0,1,1,1,1,0,0,0,8,531,', '\n12,0,1,1,1,1,0,0,0,eight,531,');
    expect(labErrorOf(() => loadRunFromTexts([{ name: 'c.csv', text: bad }], source)).details).toMatchObject({
      file: 'c.csv',
      line: 14,
      column: 10,
      columnName: 'turns',
    });
  });

  test('a short row names its line', () => {
    const lines = curve.split('\n');
    lines[20] = lines[20]!.split(',').slice(0, 10).join(',');
    const error = labErrorOf(() => loadRunFromTexts([{ name: 'c.csv', text: lines.join('\n') }], source));
    expect(error.details).toMatchObject({ line: 21, column: null });
    expect(error.message).toMatch(/line 21/);
  });

  test('a header without sessions is refused', () => {
    const header = curve.split('\n')[0]!;
    expect(labErrorOf(() => loadRunFromTexts([{ name: 'c.csv', text: `${header}\n` }], source)).code).toBe('invalid-csv');
  });

  test('two curves, or two gates, are refused', () => {
    const twoCurves = [
      { name: 'a.csv', text: curve },
      { name: 'b.csv', text: curve },
    ];
    expect(labErrorOf(() => loadRunFromTexts(twoCurves, source)).code).toBe('invalid-csv');
  });

  test('derived columns that disagree with the per-session ones load with a warning', () => {
    const edited = curve.replace('\n5,0,1,1,1,1,1,0,0,3,514,0,0.0,', '\n5,0,1,1,1,1,1,0,0,3,514,0,0.5,');
    const run = loadRunFromTexts([{ name: 'c.csv', text: edited }], source);
    expect(run.warnings).toHaveLength(1);
    expect(run.warnings[0]).toMatch(/line 7, column 13 \(accept_rate_10\)/);
  });

  test('the summary comes from the metrics domain: adaptation where three accepts in a row start', () => {
    const lines = curve.trimEnd().split('\n');
    // Accept sessions 20, 21, 22: flip the accept column, keep the rest (the warnings say the derived columns now disagree).
    for (const index of [21, 22, 23]) lines[index] = lines[index]!.replace(/^(\d+),0,/, '$1,1,');
    const run = loadRunFromTexts([{ name: 'c.csv', text: lines.join('\n') }], source);
    expect(run.summary.adaptationSession).toBe(20);
    expect(run.summary.accepted).toBe(5);
  });
});
