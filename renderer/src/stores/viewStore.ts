import { create } from 'zustand';
import { RATE_SERIES } from '../lib/chartData';
import type { RateKey, SessionRange } from '../lib/chartData';

interface ViewState {
  /** The first 36 sessions (the published curve's span) by default, or all. */
  range: SessionRange;
  visible: Record<RateKey, boolean>;
  /** Draw the Reef reference behind the run (ignored when the run is the reference). */
  overlay: boolean;
  setRange(range: SessionRange): void;
  toggleSeries(key: RateKey): void;
  setOverlay(on: boolean): void;
}

/** The view domain: what the person chose to see, independent of which run is open. */
export const useViewStore = create<ViewState>()((set) => ({
  range: 'published',
  visible: Object.fromEntries(RATE_SERIES.map((series) => [series.key, true])) as Record<RateKey, boolean>,
  overlay: true,
  setRange: (range) => set({ range }),
  toggleSeries: (key) => set((state) => ({ visible: { ...state.visible, [key]: !state.visible[key] } })),
  setOverlay: (overlay) => set({ overlay }),
}));
