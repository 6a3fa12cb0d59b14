import { create } from 'zustand';
import { isCsvLocation, LabError } from '../../../src/contract/errors';
import type { CsvLocation } from '../../../src/contract/errors';
import type { LoadedRun, RunFileText, RunSummary } from '../../../src/contract/runs';
import { getLab } from '../api/labClient';
import { csvExcerpt } from '../lib/csvExcerpt';
import type { CsvExcerpt } from '../lib/csvExcerpt';
import { readJournalFirstLine, readRunFiles } from '../lib/readRunFiles';

export interface RunLoadError {
  title: string;
  message: string;
  location: CsvLocation | null;
  excerpt: CsvExcerpt | null;
}

export type RunStatus = 'empty' | 'loading' | 'loaded' | 'error';

interface RunState {
  status: RunStatus;
  run: LoadedRun | null;
  error: RunLoadError | null;
  /** Runs loaded while this page is open, newest first (from the runs.loaded event). */
  history: RunSummary[];
  openReference(id: string): Promise<void>;
  openFiles(files: readonly File[]): Promise<void>;
  recordLoaded(summaries: readonly RunSummary[]): void;
}

const MAX_HISTORY = 12;
let latestRequest = 0;

/**
 * The run domain: the run on screen. A load replaces it whole or not at all —
 * on any error the view shows the error and no chart (nothing half-drawn), and
 * a slower earlier request never overwrites a later one.
 */
export const useRunStore = create<RunState>()((set) => {
  async function load(title: string, files: RunFileText[] | null, request: () => Promise<LoadedRun>): Promise<void> {
    const id = ++latestRequest;
    set({ status: 'loading', error: null });
    try {
      const run = await request();
      if (id === latestRequest) set({ status: 'loaded', run, error: null });
    } catch (error) {
      if (id === latestRequest) set({ status: 'error', run: null, error: describeLoadError(title, error, files) });
    }
  }

  return {
    status: 'empty',
    run: null,
    error: null,
    history: [],
    async openReference(id) {
      const lab = getLab();
      if (lab === null) return;
      await load(`Could not open the reference ${id}`, null, () => lab.runs.openReference({ id }));
    },
    async openFiles(picked) {
      const lab = getLab();
      if (lab === null) return;
      const names = picked.map((file) => file.name).join(' + ') || 'the chosen files';
      // A run's journal picked beside its curve says which recipe, seed and arm it is (and its stated preference).
      const journal = picked.find((file) => file.name.endsWith('.jsonl'));
      let files: RunFileText[];
      let journalFirstLine: string | undefined;
      try {
        files = await readRunFiles(picked.filter((file) => file !== journal));
        journalFirstLine = journal === undefined ? undefined : await readJournalFirstLine(journal);
      } catch (error) {
        latestRequest++;
        set({ status: 'error', run: null, error: describeLoadError(`Could not open ${names}`, error, null) });
        return;
      }
      await load(`Could not open ${names}`, files, () => lab.runs.openFiles({ files, ...(journalFirstLine === undefined ? {} : { journalFirstLine }) }));
    },
    recordLoaded(summaries) {
      set((state) => ({ history: [...[...summaries].reverse(), ...state.history].slice(0, MAX_HISTORY) }));
    },
  };
});

export function describeLoadError(title: string, error: unknown, files: readonly RunFileText[] | null): RunLoadError {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof LabError && error.code === 'invalid-csv' && isCsvLocation(error.details)) {
    const location = error.details;
    const file = files?.find((f) => f.name === location.file);
    return { title, message: location.problem, location, excerpt: file === undefined ? null : csvExcerpt(file.text, location) };
  }
  return { title, message, location: null, excerpt: null };
}
