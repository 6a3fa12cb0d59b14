import { createHash } from 'node:crypto';
import { LabError } from '../contract';
import type { CsvLocation, LoadedRun, RunFileInfo, RunFileText, RunSourceKind } from '../contract';
import { CsvError } from '../core/metrics/csv';
import { CURVE_COLUMNS, sessionsToAdaptation } from '../core/metrics/curve';
import { checkDerivedColumns, describeMismatch, parseCurveCsv } from '../core/metrics/curveCsv';
import { GATE_COLUMNS, parseGateCsv } from '../core/metrics/gateCsv';

/** At most this many derived-column mismatches are listed; the rest are counted. */
const MAX_LISTED_MISMATCHES = 5;

/**
 * Tells a curve.csv from a gate.csv by its header, not its name, so a renamed
 * export still opens; a file that is neither is an error on its line 1.
 */
export function classifyRunFile(file: RunFileText): 'curve' | 'gate' {
  const firstLine = (file.text.startsWith('\uFEFF') ? file.text.slice(1) : file.text).split(/\r?\n/, 1)[0] ?? '';
  const firstCell = firstLine.split(',', 1)[0]?.trim();
  if (firstCell === CURVE_COLUMNS[0]) return 'curve';
  if (firstCell === GATE_COLUMNS[0]) return 'gate';
  throw csvLabError(
    new CsvError(
      file.name,
      1,
      null,
      `the header is neither a curve.csv (${CURVE_COLUMNS.slice(0, 3).join(',')},…) nor a gate.csv (${GATE_COLUMNS.slice(0, 3).join(',')},…)`,
    ),
  );
}

/**
 * Parses a run from the text of its files — all of it or none of it: the
 * first problem in any file rejects the whole load with its file, line and
 * column, so the viewer never draws half a run.
 */
export function loadRunFromTexts(files: readonly RunFileText[], source: { kind: RunSourceKind; id: string; title: string }): LoadedRun {
  const curves = files.filter((file) => classifyRunFile(file) === 'curve');
  const gates = files.filter((file) => classifyRunFile(file) === 'gate');
  const curveFile = curves[0];
  if (curveFile === undefined) {
    throw new LabError('invalid-csv', "No curve.csv among the chosen files: pick a run's curve.csv (and its gate.csv).");
  }
  if (curves.length > 1 || gates.length > 1) {
    throw new LabError('invalid-csv', 'Pick one curve.csv and at most one gate.csv of the same run.');
  }
  const gateFile = gates[0];

  let curve: ReturnType<typeof parseCurveCsv>;
  let gateSteps: ReturnType<typeof parseGateCsv> | null = null;
  try {
    curve = parseCurveCsv(curveFile.text, curveFile.name);
    if (gateFile !== undefined) gateSteps = parseGateCsv(gateFile.text, gateFile.name);
  } catch (error) {
    if (error instanceof CsvError) throw csvLabError(error);
    throw error;
  }
  if (curve.rows.length === 0) {
    throw csvLabError(new CsvError(curveFile.name, 2, null, 'the file has a header but no sessions'));
  }

  const mismatches = checkDerivedColumns(curve);
  const warnings = mismatches.slice(0, MAX_LISTED_MISMATCHES).map((m) => describeMismatch(curveFile.name, m));
  if (mismatches.length > MAX_LISTED_MISMATCHES) {
    warnings.push(`${curveFile.name}: ${mismatches.length - MAX_LISTED_MISMATCHES} more derived cells disagree`);
  }

  const fileInfos: RunFileInfo[] = [describeFile(curveFile, 'curve')];
  if (gateFile !== undefined) fileInfos.push(describeFile(gateFile, 'gate'));

  return {
    summary: {
      id: source.id,
      title: source.title,
      sourceKind: source.kind,
      sessionCount: curve.rows.length,
      accepted: curve.rows.reduce((sum, row) => sum + row.accept, 0),
      adaptationSession: sessionsToAdaptation(curve.rows),
      gateSteps: gateSteps === null ? null : gateSteps.length,
    },
    files: fileInfos,
    columns: [...CURVE_COLUMNS],
    sessions: curve.rows.map((row) => ({ ...row })),
    gate: gateSteps === null ? null : { columns: [...GATE_COLUMNS], steps: gateSteps },
    warnings,
  };
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function describeFile(file: RunFileText, role: 'curve' | 'gate'): RunFileInfo {
  return { name: file.name, role, bytes: Buffer.byteLength(file.text, 'utf8'), sha256: sha256Hex(file.text) };
}

/** A CsvError as the LabError the renderer shows: message plus file/line/column. */
export function csvLabError(error: CsvError): LabError {
  const location: CsvLocation = {
    file: error.file,
    line: error.line,
    column: error.column?.index ?? null,
    columnName: error.column?.name ?? null,
    problem: error.problem,
  };
  return new LabError('invalid-csv', error.message, location);
}
