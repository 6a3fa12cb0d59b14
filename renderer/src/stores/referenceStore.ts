import { create } from 'zustand';
import type { LoadedRun, PublishedResult, ReferenceRunInfo } from '../../../electron/contract/runs';
import { getLab } from '../api/labClient';

interface ReferenceState {
  published: PublishedResult | null;
  runs: ReferenceRunInfo[];
  /** The reference drawn as an overlay behind other runs (loaded on first need). */
  overlay: LoadedRun | null;
  overlayError: string | null;
  load(): Promise<void>;
  loadOverlay(): Promise<void>;
}

/** The references domain: the shipped runs and the published result (session 14, 36 sessions). */
export const useReferenceStore = create<ReferenceState>()((set, get) => ({
  published: null,
  runs: [],
  overlay: null,
  overlayError: null,
  async load() {
    const lab = getLab();
    if (lab === null) return;
    const { published, runs } = await lab.runs.listReferences();
    set({ published, runs });
  },
  async loadOverlay() {
    const lab = getLab();
    const first = get().runs[0];
    if (lab === null || first === undefined || get().overlay !== null) return;
    try {
      set({ overlay: await lab.runs.openReference({ id: first.id, purpose: 'overlay' }), overlayError: null });
    } catch (error) {
      set({ overlayError: error instanceof Error ? error.message : String(error) });
    }
  },
}));
