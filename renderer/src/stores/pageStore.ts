import { create } from 'zustand';

/** The three places of the window: start a run, watch the run, read a curve. */
export type Page = 'start' | 'run' | 'viewer';

interface PageState {
  page: Page;
  show(page: Page): void;
}

/** The page domain: which page the main pane shows. */
export const usePageStore = create<PageState>()((set) => ({
  page: 'start',
  show: (page) => set({ page }),
}));

/**
 * The page follows what the person asked for: opening a curve shows the
 * viewer; starting or opening a run shows the run. Subscribed once, in main.tsx.
 */
export function followRequests(stores: {
  viewer: { subscribe(listener: (state: { status: string }, previous: { status: string }) => void): () => void };
  labRun: {
    subscribe(listener: (state: { run: { header: { runDir: string } } | null }, previous: { run: { header: { runDir: string } } | null }) => void): () => void;
  };
}): () => void {
  const offViewer = stores.viewer.subscribe((state, previous) => {
    if (state.status !== previous.status && state.status !== 'empty') usePageStore.getState().show('viewer');
  });
  const offRun = stores.labRun.subscribe((state, previous) => {
    if (state.run !== null && state.run.header.runDir !== previous.run?.header.runDir) usePageStore.getState().show('run');
  });
  return () => {
    offViewer();
    offRun();
  };
}
