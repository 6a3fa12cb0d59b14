import { useCompareStore } from '../stores/compareStore';
import { useRunStore } from '../stores/runStore';

const INPUT_ID = 'open-run-input';

/**
 * The page's one file input: "Open run…" uses the File API in both modes
 * (Electron shows its native dialog for it). Pick a curve.csv and,
 * optionally, its gate.csv and its journal.jsonl (which recipe, seed and arm
 * the run is); while runs are compared, it adds one. Rendered once, in App.
 */
export function OpenRunInput() {
  const openFiles = useRunStore((state) => state.openFiles);
  return (
    <input
      id={INPUT_ID}
      data-testid={INPUT_ID}
      type="file"
      accept=".csv,text/csv,.jsonl"
      multiple
      hidden
      onChange={(event) => {
        const files = [...(event.currentTarget.files ?? [])];
        event.currentTarget.value = '';
        if (files.length === 0) return;
        // While runs are compared, a run opened is one more run in the comparison.
        if (useCompareStore.getState().comparing)
          void useCompareStore.getState().addPicked(files.map((file) => ({ file, relativePath: file.webkitRelativePath })));
        else void openFiles(files);
      }}
    />
  );
}

/** A button that opens the file picker of the page's OpenRunInput. */
export function OpenRunButton({ variant = 'primary' }: { variant?: 'primary' | 'secondary' }) {
  return (
    <button type="button" className={`button ${variant}`} onClick={() => document.getElementById(INPUT_ID)?.click()}>
      Open run…
    </button>
  );
}
