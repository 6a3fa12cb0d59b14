import { create } from 'zustand';
import type { AwaitingView } from '../../../src/contract/labRuns';
import { getLab } from '../api/labClient';

interface AwaitingState {
  /** Every candidate awaiting a person in the runs the lab follows; empty before the lab answers. */
  view: AwaitingView;
  load(): Promise<void>;
  /** A frame's worth of `labRuns.awaitingChanged` events: each carries the whole list, so the newest wins. */
  apply(views: readonly AwaitingView[]): void;
}

const NONE: AwaitingView = { total: 0, runs: [] };

/**
 * The lab-wide waiting list: a candidate waiting in any run counts wherever
 * the person is in the app (the top bar, the window title), not only on its
 * run's page. Kept current by the lab's events; never polled.
 */
export const useAwaitingStore = create<AwaitingState>()((set) => {
  // An event is newer than a reply to a request sent before it: once one has arrived, the reply is stale.
  let fromEvents = false;
  return {
    view: NONE,
    async load() {
      const lab = getLab();
      if (lab === null) return;
      const view = await lab.labRuns.awaiting();
      if (!fromEvents) set({ view });
    },
    apply(views) {
      const newest = views.at(-1);
      if (newest === undefined) return;
      fromEvents = true;
      set({ view: newest });
    },
  };
});
