import { create } from 'zustand';
import type { CurveRow, LoadedRun, RunProvenance } from '../../../src/contract/runs';
import { getLab } from '../api/labClient';
import type { RateKey } from '../lib/chartData';
import { readJournalFirstLine, readRunFiles } from '../lib/readRunFiles';
import { groupRunFiles, runLabel, type PickedFile } from '../lib/runFolderFiles';

/** One run in the comparison: its name (editable), its rows, and where it came from. */
export interface ComparedRun {
  key: string;
  label: string;
  /** Where it was read from, for the person: a run folder, picked files, the viewer's run. */
  origin: string;
  sessions: CurveRow[];
  adaptationSession: number | null;
  /** Sessions accepted, of `sessions.length`. */
  accepted: number;
  /** The recipe, seed and arm from the run's journal; null for a curve without one (picked files, a reference). */
  provenance: RunProvenance | null;
}

/** One chart with every run overlaid, or one chart per metric side by side, each with every run. */
export type CompareLayout = 'overlaid' | 'per-metric';

/** At most this many runs are overlaid (each needs its own colour: theme.css has six). */
export const MAX_COMPARED = 6;

interface CompareState {
  /** The viewer shows the comparison (from the first run added until "Stop comparing"). */
  comparing: boolean;
  runs: ComparedRun[];
  /** The rate series compared (one at a time: several runs × four series would not read). */
  series: RateKey;
  layout: CompareLayout;
  pending: boolean;
  problem: string | null;
  addFolder(where: { runId: string } | { path: string }): Promise<void>;
  addPicked(picked: readonly PickedFile[]): Promise<void>;
  addLoaded(run: LoadedRun): void;
  rename(key: string, label: string): void;
  remove(key: string): void;
  clear(): void;
  setSeries(series: RateKey): void;
  setLayout(layout: CompareLayout): void;
  dismissProblem(): void;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The comparison domain: several runs overlaid in the curve viewer, each
 * labelled by its run's name. Runs come from the run folders (by name or
 * path), from files or folders a person picks (Open run…), or from the run
 * the viewer shows; the lab parses each exactly as it parses any run.
 */
export const useCompareStore = create<CompareState>()((set, get) => {
  function add(run: LoadedRun, label: string, origin: string): void {
    const runs = get().runs;
    if (runs.length >= MAX_COMPARED) {
      set({ problem: `At most ${MAX_COMPARED} runs can be compared; remove one first.` });
      return;
    }
    // The same run (same rows) added twice is one line, not two.
    const key = `${run.summary.id}`;
    if (runs.some((r) => r.key === key)) return;
    const taken = new Set(runs.map((r) => r.label));
    let unique = label;
    for (let n = 2; taken.has(unique); n++) unique = `${label} (${n})`;
    set({
      comparing: true,
      runs: [
        ...runs,
        {
          key,
          label: unique,
          origin,
          sessions: run.sessions,
          adaptationSession: run.summary.adaptationSession,
          accepted: run.summary.accepted,
          provenance: run.provenance ?? null,
        },
      ],
      problem: null,
    });
  }

  async function attempt(work: () => Promise<void>): Promise<void> {
    set({ pending: true, problem: null });
    try {
      await work();
    } catch (error) {
      set({ problem: messageOf(error) });
    } finally {
      set({ pending: false });
    }
  }

  return {
    comparing: false,
    runs: [],
    series: 'accept_rate_10',
    layout: 'overlaid',
    pending: false,
    problem: null,
    addFolder: (where) =>
      attempt(async () => {
        const lab = getLab();
        if (lab === null) return;
        const run = await lab.labRuns.openCurve({ ...where, purpose: 'compare' });
        add(run, run.summary.title, 'runId' in where ? `run folder ${where.runId}` : where.path);
      }),
    addPicked: (picked) =>
      attempt(async () => {
        const lab = getLab();
        if (lab === null) return;
        const groups = groupRunFiles(picked);
        if (groups.length === 0) throw new Error("No curve.csv found: pick a run folder, or a run's curve.csv (and its gate.csv).");
        for (const group of groups) {
          const files = await readRunFiles(group.files);
          const label = runLabel(group, get().runs.length + 1);
          const journalFirstLine = group.journal === undefined ? undefined : await readJournalFirstLine(group.journal);
          const run = await lab.runs.openFiles({ files, purpose: 'compare', title: label, ...(journalFirstLine === undefined ? {} : { journalFirstLine }) });
          add(run, label, group.files.map((f) => f.name).join(' + '));
        }
      }),
    addLoaded: (run) => add(run, run.summary.title, run.summary.sourceKind === 'reference' ? 'reference' : run.files.map((f) => f.name).join(' + ')),
    rename: (key, label) => {
      const trimmed = label.trim();
      if (trimmed === '') return;
      set((state) => ({ runs: state.runs.map((r) => (r.key === key ? { ...r, label: trimmed } : r)) }));
    },
    remove: (key) => set((state) => ({ runs: state.runs.filter((r) => r.key !== key) })),
    clear: () => set({ comparing: false, runs: [], problem: null }),
    setSeries: (series) => set({ series }),
    setLayout: (layout) => set({ layout }),
    dismissProblem: () => set({ problem: null }),
  };
});
