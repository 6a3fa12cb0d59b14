import { create } from 'zustand';
import type { WorkersView } from '../../../src/contract/workers';
import { getLab } from '../api/labClient';

interface WorkersState {
  /** The lab's worker processes as last reported; null before the first answer. */
  view: WorkersView | null;
  problem: string | null;
  load(): Promise<void>;
  /** A frame's worth of `workers.changed` events: each carries the whole list, so the newest wins. */
  apply(views: readonly WorkersView[]): void;
}

/** The workers domain: every process the lab supervises, kept current by `workers.changed`. */
export const useWorkersStore = create<WorkersState>()((set) => ({
  view: null,
  problem: null,
  async load() {
    const lab = getLab();
    if (lab === null) return;
    try {
      set({ view: await lab.workers.list(), problem: null });
    } catch (error) {
      set({ problem: error instanceof Error ? error.message : String(error) });
    }
  },
  apply(views) {
    const newest = views.at(-1);
    if (newest !== undefined) set({ view: newest, problem: null });
  },
}));
