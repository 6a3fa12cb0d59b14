// A run folder's curve files as the curve viewer loads them: its curve.csv
// (and gate.csv, to view it), read from disk and parsed exactly as files a
// person picked are, titled by the folder's name — so runs compared side by
// side are told apart by their names, not all called "curve.csv".
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { LoadedRun, RunFileText } from '../contract';
import { LabError } from '../contract';
import { runPaths } from '../run/runFolder';
import { loadRunFromTexts, sha256Hex } from './runFiles';
import { readRunProvenance } from './runProvenance';

async function readIfPresent(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new LabError('not-found', `${file}: ${(error as Error).message}`);
  }
}

/**
 * Loads `runDir`'s curve.csv, and its gate.csv when `withGate` (comparing
 * draws curves only), with the recipe, seed and arm its journal recorded. Refused, naming the folder, when the run has no curve
 * yet; a malformed file is refused whole with its line and column.
 */
export async function loadRunFolderCurve(runDir: string, withGate: boolean): Promise<LoadedRun> {
  const name = path.basename(runDir);
  const paths = runPaths(runDir);
  const curve = await readIfPresent(paths.curve);
  if (curve === undefined) throw new LabError('not-found', `${runDir} has no curve.csv: it is not a run folder, or no session has completed`);
  if (curve.trim() === '') throw new LabError('not-found', `${name} has no completed session yet: its curve.csv is empty`);
  const files: RunFileText[] = [{ name: 'curve.csv', text: curve }];
  const gate = withGate ? await readIfPresent(paths.gateCsv) : undefined;
  // An empty gate.csv (no candidate decided yet) is no gate table.
  if (gate !== undefined && gate.trim() !== '') files.push({ name: 'gate.csv', text: gate });
  const run = loadRunFromTexts(files, { kind: 'files', id: `folder:${name}:${sha256Hex(curve).slice(0, 12)}`, title: name });
  // Which recipe, seed and arm the curve belongs to: comparisons are read by them.
  const provenance = await readRunProvenance(runDir);
  return provenance === undefined ? run : { ...run, provenance };
}
