import { describe, expect, test } from 'vitest';
import { csvExcerpt } from './csvExcerpt';

const text = 'session,accept,bold\n0,1,0\n1,x,0\r\n2,0,1\n';
const at = (line: number, column: number | null) => ({ file: 'c.csv', line, column, columnName: null, problem: 'p' });

describe('the excerpt of a CSV error', () => {
  test('splits the named line around the bad cell', () => {
    expect(csvExcerpt(text, at(3, 2))).toEqual({ line: 3, before: '1,', cell: 'x', after: ',0' });
    expect(csvExcerpt(text, at(3, 1))).toEqual({ line: 3, before: '', cell: '1', after: ',x,0' });
    expect(csvExcerpt(text, at(4, 3))).toEqual({ line: 4, before: '2,0,', cell: '1', after: '' });
  });

  test('a line-level problem shows the whole line; a missing line shows nothing', () => {
    expect(csvExcerpt(text, at(2, null))).toEqual({ line: 2, before: '0,1,0', cell: '', after: '' });
    expect(csvExcerpt(text, at(3, 9))).toEqual({ line: 3, before: '1,x,0', cell: '', after: '' });
    expect(csvExcerpt(text, at(40, 1))).toBe(null);
  });

  test('a very long line is clipped', () => {
    const long = `${'9,'.repeat(500)}9\n`;
    expect(csvExcerpt(long, at(1, null), 20)?.before).toHaveLength(21);
  });
});
