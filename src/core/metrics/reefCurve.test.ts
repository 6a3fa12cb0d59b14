// Reef's published runs are the reference: recomputing every derived column
// of their curve.csv from its per-session columns, and writing the result the
// way we write our own runs, must give back the very same file.

import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CURVE_COLUMNS, curveRows, sessionsToAdaptation, type SessionObservation } from './curve';
import { checkDerivedColumns, describeMismatch, formatCurveCsv, parseCurveCsv } from './curveCsv';
import { formatGateCsv, parseGateCsv } from './gateCsv';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
// The published runs live beside the repository (../shared, as in CI), and a
// copy ships with the app under assets/reference/ once the viewer adds it.
const runRoots = [join(repoRoot, '../shared/data/reef-runs'), join(repoRoot, 'assets/reference')];
const reefRuns = runRoots
  .filter((root) => existsSync(root))
  .flatMap((root) => readdirSync(root).map((name) => join(root, name)))
  .filter((dir) => existsSync(join(dir, 'curve.csv')));
const named = (dirs: string[]) => dirs.map((dir) => [relative(repoRoot, dir), dir] as const);

function perSession(row: SessionObservation): SessionObservation {
  const { session, accept, bold, bullets, numbered, no_shown_work, no_gold_answer, turns, first_reply_chars } = row;
  return { session, accept, bold, bullets, numbered, no_shown_work, no_gold_answer, turns, first_reply_chars };
}

describe("Reef's published curve.csv", () => {
  it('is present (../shared/data/reef-runs)', () => {
    expect(reefRuns.length).toBeGreaterThan(0);
  });

  it.each(named(reefRuns))('%s: recomputed derived columns reproduce the file byte for byte', (_name, dir) => {
    const file = join(dir, 'curve.csv');
    const text = readFileSync(file, 'utf8');
    const published = parseCurveCsv(text, file);
    expect(published.rows.length).toBeGreaterThanOrEqual(36);

    const recomputed = curveRows(published.rows.map(perSession));
    // Numerically, at the precision each cell was written with...
    expect(checkDerivedColumns(published).map((m) => describeMismatch(file, m))).toEqual([]);
    for (const [i, row] of recomputed.entries()) {
      for (const col of CURVE_COLUMNS) expect(row[col], `row ${i} ${col}`).toBeCloseTo(published.rows[i]![col], 12);
    }
    // ...and as text, written the way Reef's Python writes it.
    expect(formatCurveCsv(recomputed)).toBe(text);
  });

  it.each(named(reefRuns))('%s: sessions_to_adaptation agrees with a direct scan of accept', (_name, dir) => {
    const rows = parseCurveCsv(readFileSync(join(dir, 'curve.csv'), 'utf8')).rows;
    const found = sessionsToAdaptation(rows);
    const accepts = rows.map((r) => r.accept).join('');
    const at = accepts.indexOf('111');
    expect(found).toBe(at === -1 ? null : rows[at]!.session);
  });

  it.each(named(reefRuns.filter((dir) => existsSync(join(dir, 'gate.csv')))))('%s: gate.csv reads and writes back identically', (_name, dir) => {
    const text = readFileSync(join(dir, 'gate.csv'), 'utf8');
    const rows = parseGateCsv(text);
    expect(rows.length).toBeGreaterThan(0);
    expect(formatGateCsv(rows)).toBe(text);
  });
});
