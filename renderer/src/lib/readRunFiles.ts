import { MAX_RUN_FILE_CHARS } from '../../../electron/contract/runs';
import type { RunFileText } from '../../../electron/contract/runs';

/**
 * Reads the files a person picked (or dropped) with the File API — the same
 * in Electron and in a browser — and returns their text for `runs.openFiles`.
 */
export async function readRunFiles(files: readonly File[]): Promise<RunFileText[]> {
  if (files.length === 0) throw new Error('No file chosen.');
  if (files.length > 2) throw new Error(`Choose a run's curve.csv and, optionally, its gate.csv (got ${files.length} files).`);
  return Promise.all(
    files.map(async (file) => {
      if (file.size > MAX_RUN_FILE_CHARS) {
        throw new Error(`${file.name} is ${file.size} bytes; a run file is at most ${MAX_RUN_FILE_CHARS} bytes.`);
      }
      return { name: file.name, text: await file.text() };
    }),
  );
}
