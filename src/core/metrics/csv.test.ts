import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CsvError, parseCsvTable, readCsvRecords, writeCsvRecords, type CsvTableSpec } from './csv';

describe('readCsvRecords', () => {
  it('reads LF and CRLF files, with or without a final line break', () => {
    const want = [
      { line: 1, cells: ['a', 'b'] },
      { line: 2, cells: ['1', '2'] },
    ];
    expect(readCsvRecords('a,b\n1,2\n', 'f')).toEqual(want);
    expect(readCsvRecords('a,b\r\n1,2\r\n', 'f')).toEqual(want);
    expect(readCsvRecords('a,b\n1,2', 'f')).toEqual(want);
    expect(readCsvRecords('\uFEFFa,b\n1,2', 'f')).toEqual(want);
  });

  it('reads quoted fields with commas, doubled quotes and line breaks, and counts lines', () => {
    const records = readCsvRecords('x,y\n"a,b","say ""hi"""\n"two\nlines",z\nlast,1\n', 'f');
    expect(records).toEqual([
      { line: 1, cells: ['x', 'y'] },
      { line: 2, cells: ['a,b', 'say "hi"'] },
      { line: 3, cells: ['two\nlines', 'z'] },
      { line: 5, cells: ['last', '1'] },
    ]);
  });

  it('keeps empty cells', () => {
    expect(readCsvRecords('a,,c,\n', 'f')).toEqual([{ line: 1, cells: ['a', '', 'c', ''] }]);
  });

  it.each([
    ['x\n"open', /f: line 2: a quoted field is never closed/],
    ['x\n"a"b', /f: line 2: text after the closing quote/],
    ['x\nab"c', /f: line 2: a double quote inside an unquoted field/],
  ])('rejects %j', (text, message) => {
    expect(() => readCsvRecords(text, 'f')).toThrow(message);
  });

  it('writes what it reads', () => {
    const rows = [
      ['a', 'b,c'],
      ['say "hi"', 'two\nlines'],
      ['', 'x'],
    ];
    const text = writeCsvRecords(rows);
    expect(text.endsWith('\n')).toBe(true);
    expect(readCsvRecords(text, 'f').map((r) => r.cells)).toEqual(rows);
  });
});

describe('parseCsvTable', () => {
  const spec: CsvTableSpec<'n' | 'flag', { n: number; flag: boolean }> = {
    columns: ['n', 'flag'],
    row: z.object({
      n: z.string().regex(/^\d+$/u, 'expected an integer').transform(Number),
      flag: z.enum(['yes', 'no'], { error: 'expected yes or no' }).transform((v) => v === 'yes'),
    }),
  };

  it("parses typed rows and keeps each row's line", () => {
    const t = parseCsvTable('n,flag\n1,yes\n2,no\n\n', 't.csv', spec);
    expect(t.rows).toEqual([
      { n: 1, flag: true },
      { n: 2, flag: false },
    ]);
    expect(t.records.map((r) => r.line)).toEqual([2, 3]);
  });

  it("allows named trailing columns only when the layout says so, and still checks every row's width", () => {
    const wide = { ...spec, trailingColumns: 'allow' as const };
    expect(parseCsvTable('n,flag,ours\n1,yes,0.5\n', 't.csv', wide).rows).toEqual([{ n: 1, flag: true }]);
    expect(() => parseCsvTable('n,flag,ours\n1,yes\n', 't.csv', wide)).toThrow('t.csv: line 2: has 2 fields, expected 3');
    expect(() => parseCsvTable('n,flag,\n1,yes,x\n', 't.csv', wide)).toThrow('header column 3 has no name');
  });

  it.each([
    ['', 't.csv: line 1: the file is empty'],
    ['n\n1\n', 't.csv: line 1, column 2 (flag): expected the header column "flag", found nothing'],
    ['flag,n\n', 't.csv: line 1, column 1 (n): expected the header column "n", found "flag"'],
    ['n,flag,extra\n', 't.csv: line 1: unexpected extra header column "extra"'],
    ['n,flag\n1,yes\n2\n', 't.csv: line 3: has 1 fields, expected 2'],
    ['n,flag\n1,yes\n\n2,no\n', 't.csv: line 3: empty line inside the table'],
    ['n,flag\n1,yes\nx,no\n', 't.csv: line 3, column 1 (n): expected an integer, found "x"'],
    ['n,flag\r\n1,yes\r\n2,maybe\r\n', 't.csv: line 3, column 2 (flag): expected yes or no, found "maybe"'],
  ])('names the place of the problem in %j', (text, message) => {
    let caught: unknown;
    try {
      parseCsvTable(text, 't.csv', spec);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(CsvError);
    expect((caught as CsvError).message.startsWith(message)).toBe(true);
  });
});
