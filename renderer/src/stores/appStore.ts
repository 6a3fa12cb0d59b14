import { create } from 'zustand';
import type { AppInfo } from '../../../src/contract/app';
import { getLab, labUnavailableReason } from '../api/labClient';

interface AppState {
  info: AppInfo | null;
  /** Why the page cannot reach the lab (no token, lab stopped), or null. */
  problem: string | null;
  load(): Promise<void>;
}

/** The app domain: who we are talking to, and whether we can. */
export const useAppStore = create<AppState>()((set) => ({
  info: null,
  problem: null,
  async load() {
    const lab = getLab();
    if (lab === null) {
      set({ problem: labUnavailableReason() });
      return;
    }
    try {
      set({ info: await lab.app.info(), problem: null });
    } catch (error) {
      set({ problem: `The lab does not answer: ${error instanceof Error ? error.message : String(error)}` });
    }
  },
}));
