import { create } from 'zustand';
import type { LoadedRun, PublishedResult, ReferenceRunInfo } from '../../../src/contract/runs';
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

/** The list of references as it is being fetched: an overlay asked for meanwhile waits for it instead of finding no reference. */
let listing: Promise<void> | null = null;

/** The references domain: the shipped runs and the published result (session 14, 36 sessions). */
export const useReferenceStore = create<ReferenceState>()((set, get) => ({
  published: null,
  runs: [],
  overlay: null,
  overlayError: null,
  load() {
    const lab = getLab();
    if (lab === null) return Promise.resolve();
    const request = lab.runs.listReferences().then(({ published, runs }) => set({ published, runs }));
    listing = request.finally(() => {
      if (listing === request) listing = null;
    });
    return request;
  },
  async loadOverlay() {
    const lab = getLab();
    if (lab === null || get().overlay !== null) return;
    try {
      // A run opened right after start-up asks before the list has arrived.
      if (get().runs.length === 0) await (listing ?? get().load());
      const first = get().runs[0];
      if (first === undefined || get().overlay !== null) return;
      set({ overlay: await lab.runs.openReference({ id: first.id, purpose: 'overlay' }), overlayError: null });
    } catch (error) {
      set({ overlayError: error instanceof Error ? error.message : String(error) });
    }
  },
}));
