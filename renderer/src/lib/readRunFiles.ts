import { MAX_RUN_FILE_CHARS } from '../../../src/contract/runs';
import type { RunFileText } from '../../../src/contract/runs';

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

/**
 * The first line of a run folder's journal: its run-started event, which
 * records the recipe, seed and arm. Read in slices, so a long journal is not
 * read whole; undefined when the file has no complete first line (a journal
 * torn at its first append records no run).
 */
export async function readJournalFirstLine(journal: File): Promise<string | undefined> {
  const slice = 64 * 1024;
  // One decoder over the slices: a character cut between two of them is joined, not garbled.
  const decoder = new TextDecoder();
  let text = '';
  for (let start = 0; start < journal.size && start < MAX_RUN_FILE_CHARS; start += slice) {
    text += decoder.decode(new Uint8Array(await journal.slice(start, start + slice).arrayBuffer()), { stream: true });
    const newline = text.indexOf('\n');
    if (newline >= 0) return text.slice(0, newline);
  }
  return undefined;
}
