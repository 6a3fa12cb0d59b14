import { create } from 'zustand';

/** The places of the window: start a run, serve outside clients (live mode), watch the run, read a curve. */
export type Page = 'start' | 'live' | 'run' | 'viewer';

/** The page that shows a run: live mode's own page for a live-mode run, else the run page. */
export const pageOfRun = (run: { header: { live: unknown } }): Page => (run.header.live === null ? 'run' : 'live');

interface PageState {
  page: Page;
  /** Whether a page has been asked for since the window opened. */
  chosen: boolean;
  show(page: Page): void;
  /** Shows what the lab restored at start-up, unless a page was already asked for. */
  showRestored(page: Page): void;
}

/** The page domain: which page the main pane shows. */
export const usePageStore = create<PageState>()((set, get) => ({
  page: 'start',
  chosen: false,
  show: (page) => set({ page, chosen: true }),
  showRestored: (page) => {
    // The lab's answer can arrive after the person's first click (a busy machine): that click wins.
    if (!get().chosen) set({ page });
  },
}));

/**
 * The page follows what the person asked for: opening a curve shows the
 * viewer; starting or opening a run shows the run. A run the lab already
 * had open when the window loaded is shown only if nothing was asked for yet.
 * Subscribed once, in main.tsx.
 */
export function followRequests(stores: {
  viewer: { subscribe(listener: (state: { status: string }, previous: { status: string }) => void): () => void };
  labRun: {
    subscribe(
      listener: (
        state: { run: { header: { runDir: string; live: unknown } } | null },
        previous: { run: { header: { runDir: string; live: unknown } } | null },
      ) => void,
    ): () => void;
  };
}): () => void {
  const offViewer = stores.viewer.subscribe((state, previous) => {
    if (state.status !== previous.status && state.status !== 'empty') usePageStore.getState().show('viewer');
  });
  const offRun = stores.labRun.subscribe((state, previous) => {
    if (state.run === null || state.run.header.runDir === previous.run?.header.runDir) return;
    if (previous.run === null) usePageStore.getState().showRestored(pageOfRun(state.run));
    else usePageStore.getState().show(pageOfRun(state.run));
  });
  return () => {
    offViewer();
    offRun();
  };
}
