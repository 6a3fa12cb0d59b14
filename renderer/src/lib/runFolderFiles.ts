/**
 * Files a person picked or dropped, read as runs: a run folder (the picker's
 * folder mode, or a folder dropped on the window) gives its curve.csv and
 * gate.csv at the top level, its journal (for the recipe, seed and arm it
 * records), and its name — the run's name, the label a
 * comparison shows, never "curve.csv".
 */

/** A picked file with its path inside the picked folder ("run-a/curve.csv"), empty for a plain file. */
export type PickedFile = { readonly file: File; readonly relativePath: string };

/** A run among picked files: its name (a folder's), its curve files, and its journal when the folder has one (which recipe, seed and arm). */
export type PickedRun = { readonly label: string | null; readonly files: File[]; readonly journal?: File };

const RUN_FILE = /^(curve|gate)\.csv$/;

/**
 * Groups picked files into runs: one per folder (its top-level curve.csv and
 * gate.csv; everything else in a run folder — weights, sessions — is left
 * alone), and the plain files together as one run without a folder name.
 */
export function groupRunFiles(picked: readonly PickedFile[]): PickedRun[] {
  const folders = new Map<string, File[]>();
  const journals = new Map<string, File>();
  const plain: File[] = [];
  for (const { file, relativePath } of picked) {
    const parts = relativePath.split('/').filter((part) => part !== '');
    if (parts.length <= 1) {
      plain.push(file);
      continue;
    }
    if (parts.length === 2 && parts[1] === 'journal.jsonl') {
      journals.set(parts[0]!, file);
      continue;
    }
    // A run folder's own files only: <folder>/curve.csv, not <folder>/sessions/…
    if (parts.length !== 2 || !RUN_FILE.test(parts[1]!)) continue;
    const folder = parts[0]!;
    folders.set(folder, [...(folders.get(folder) ?? []), file]);
  }
  const runs: PickedRun[] = [...folders].map(([label, files]) => {
    const journal = journals.get(label);
    return journal === undefined ? { label, files } : { label, files, journal };
  });
  if (plain.length > 0) runs.push({ label: null, files: plain });
  return runs;
}

/** The name a comparison gives a run: its folder's, else its curve file's unless that is just "curve.csv", else "run N". */
export function runLabel(run: PickedRun, ordinal: number): string {
  if (run.label !== null) return run.label;
  const curve = run.files.find((file) => !/^gate/i.test(file.name)) ?? run.files[0];
  const stem = curve?.name.replace(/\.csv$/i, '') ?? '';
  return stem !== '' && stem.toLowerCase() !== 'curve' ? stem : `run ${ordinal}`;
}
