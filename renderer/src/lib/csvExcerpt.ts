import type { CsvLocation } from '../../../src/contract/errors';

/** The offending line of a malformed CSV, split around the bad cell for highlighting. */
export interface CsvExcerpt {
  line: number;
  before: string;
  cell: string;
  after: string;
}

/**
 * Finds the line (and cell) a CsvLocation names in the text the person
 * chose, so the error shows exactly what to fix. Quoted cells are rare in
 * these files; the split is by comma, and a miss just shows the whole line.
 */
export function csvExcerpt(text: string, location: CsvLocation, maxChars = 240): CsvExcerpt | null {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const lineText = lines[location.line - 1];
  if (lineText === undefined) return null;
  const clipped = lineText.length > maxChars ? `${lineText.slice(0, maxChars)}…` : lineText;
  if (location.column === null) return { line: location.line, before: clipped, cell: '', after: '' };
  const cells = lineText.split(',');
  const index = location.column - 1;
  if (index >= cells.length) return { line: location.line, before: clipped, cell: '', after: '' };
  const before = cells.slice(0, index).join(',') + (index > 0 ? ',' : '');
  const after = (index < cells.length - 1 ? ',' : '') + cells.slice(index + 1).join(',');
  return { line: location.line, before, cell: cells[index] ?? '', after };
}
