import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { annotatedSteps, Gsm8kFormatError, loadGsm8k, parseGsm8k } from './gsm8k';

const SHARED = join(process.cwd(), '..', 'shared', 'data', 'gsm8k');

describe('GSM8K loader', () => {
  it('reads JSONL with worked answers ending "#### N" and their <<calc>> steps', () => {
    const jsonl = [
      JSON.stringify({ question: 'Natalia sold clips to 48 friends...', answer: 'In May 48/2 = <<48/2=24>>24.\nTotal 48+24 = <<48+24=72>>72.\n#### 72' }),
      '',
      JSON.stringify({ question: 'Big one?', answer: 'So <<194*340=65960>>65960.\n#### 65,960' }),
    ].join('\n');
    const tasks = parseGsm8k(jsonl, 'mini.jsonl');
    expect(tasks.map((t) => t.answer)).toEqual([72, 65960]);
    expect(tasks[0]?.steps.map((s) => [s.expr, s.result])).toEqual([
      ['48/2', 24],
      ['48+24', 72],
    ]);
    expect(tasks[1]?.firstMessage).toContain('homework/2.txt');
  });

  it('skips annotations that do not check out', () => {
    expect(annotatedSteps('<<2*3=7>> <<5 hours*2=10>> <<4+4=8>>').map((s) => s.expr)).toEqual(['4+4']);
  });

  it('fails closed with the record named', () => {
    expect(() => parseGsm8k('[{"question": "q"}]', 'bad.json')).toThrow(/bad.json record 1/);
    expect(() => parseGsm8k('{"question":"q","answer":"no marker"}', 'x.jsonl')).toThrow(Gsm8kFormatError);
    expect(() => parseGsm8k('{"question":"q","ground_truth_answer":"many"}', 'x.jsonl')).toThrow(/not a number/);
    expect(() => parseGsm8k('{oops', 'x.jsonl')).toThrow(/x.jsonl:1/);
    const dir = mkdtempSync(join(tmpdir(), 'gsm8k-'));
    writeFileSync(join(dir, 'empty.json'), '[]');
    expect(() => loadGsm8k(join(dir, 'empty.json'))).toThrow(/no problems/);
    expect(() => loadGsm8k(join(dir, 'missing.json'))).toThrow(/cannot read/);
  });

  describe.skipIf(!existsSync(SHARED))('on the shared GSM8K files', () => {
    it('reads the first 72 test problems in file order', () => {
      const tasks = loadGsm8k(join(SHARED, 'gsm8k-test-openclaw-order.json'), 72);
      expect(tasks).toHaveLength(72);
      expect(tasks[0]?.question).toMatch(/^Carol and Jennifer are sisters/);
      expect(tasks[0]?.answer).toBe(36);
      expect(tasks[2]?.answer).toBe(65960);
      expect(tasks[71]?.index).toBe(72);
      expect(new Set(tasks.map((t) => t.instance)).size).toBe(72);
    });
    it('reads the Reef probe set', () => {
      const tasks = loadGsm8k(join(SHARED, 'reef-probe-set-gsm8k-train.json'));
      expect(tasks.length).toBeGreaterThanOrEqual(8);
      expect(tasks[0]?.answer).toBe(72);
    });
  });
});
