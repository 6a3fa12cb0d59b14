import { create } from 'zustand';
import type { RunningRunView, RunningView } from '../../../src/contract/labRuns';
import { getLab } from '../api/labClient';

interface RunningState {
  /** The run whose sessions this lab runs, on screen or in the background; null when none. */
  run: RunningRunView | null;
  load(): Promise<void>;
  /** A frame's worth of `labRuns.runningChanged` events: each carries the whole view, so the newest wins. */
  apply(views: readonly RunningView[]): void;
}

/**
 * The running run, lab-wide: it keeps running while another run is on
 * screen, and the top bar leads back to it from every page. Kept current by
 * the lab's events; never polled.
 */
export const useRunningStore = create<RunningState>()((set) => {
  // An event is newer than a reply to a request sent before it: once one has arrived, the reply is stale.
  let fromEvents = false;
  return {
    run: null,
    async load() {
      const lab = getLab();
      if (lab === null) return;
      const view = await lab.labRuns.running();
      if (!fromEvents) set({ run: view.run });
    },
    apply(views) {
      const newest = views.at(-1);
      if (newest === undefined) return;
      fromEvents = true;
      set({ run: newest.run });
    },
  };
});
