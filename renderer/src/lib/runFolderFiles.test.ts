import { describe, expect, test } from 'vitest';
import { groupRunFiles, runLabel } from './runFolderFiles';

const file = (name: string) => new File(['x'], name);

describe('picked files read as runs (unit)', () => {
  test('a picked run folder gives its top-level curve.csv and gate.csv and its name; the rest of the folder is left alone', () => {
    const runs = groupRunFiles([
      { file: file('curve.csv'), relativePath: 'embedded-seed7/curve.csv' },
      { file: file('gate.csv'), relativePath: 'embedded-seed7/gate.csv' },
      { file: file('000.json'), relativePath: 'embedded-seed7/sessions/000.json' },
      { file: file('curve.csv'), relativePath: 'embedded-seed7/backup/curve.csv' },
      { file: file('journal.jsonl'), relativePath: 'embedded-seed7/journal.jsonl' },
    ]);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.label).toBe('embedded-seed7');
    expect(runs[0]!.files.map((f) => f.name)).toEqual(['curve.csv', 'gate.csv']);
    expect(runs[0]!.journal?.name).toBe('journal.jsonl');
    expect(runLabel(runs[0]!, 1)).toBe('embedded-seed7');
  });

  test('plain files are one run, named by the curve file unless it is just "curve.csv"', () => {
    const plain = groupRunFiles([
      { file: file('gate.csv'), relativePath: '' },
      { file: file('curve.csv'), relativePath: '' },
    ]);
    expect(plain).toEqual([{ label: null, files: expect.any(Array) }]);
    expect(runLabel(plain[0]!, 3)).toBe('run 3');
    expect(runLabel({ label: null, files: [file('seed-7.csv')] }, 1)).toBe('seed-7');
  });

  test('nothing that looks like a run gives no run', () => {
    expect(groupRunFiles([{ file: file('notes.txt'), relativePath: 'folder/notes.txt' }])).toEqual([]);
  });
});
