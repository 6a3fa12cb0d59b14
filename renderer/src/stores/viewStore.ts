import { create } from 'zustand';
import { RATE_SERIES } from '../lib/chartData';
import type { RateKey, SessionRange, YRange, Zoom } from '../lib/chartData';
import { DEFAULT_SMOOTHING, type Smoothing } from '../lib/smoothing';

interface ViewState {
  /** The first 36 sessions (the published curve's span) by default, or all. */
  range: SessionRange;
  visible: Record<RateKey, boolean>;
  /** Draw the Reef reference behind the run (ignored when the run is the reference). */
  overlay: boolean;
  /** How the rate series are smoothed (the file's rolling 10 by default). */
  smoothing: Smoothing;
  /** Draw the per-session values faintly behind the smoothed lines. */
  showRaw: boolean;
  /** The session range the person zoomed into (dragging across the chart); null shows the whole range. */
  zoom: Zoom | null;
  /** The y range the person typed in (rates, 0…1); null shows 0–100 %. */
  yRange: YRange | null;
  setRange(range: SessionRange): void;
  toggleSeries(key: RateKey): void;
  setOverlay(on: boolean): void;
  setSmoothing(smoothing: Smoothing): void;
  setShowRaw(on: boolean): void;
  setZoom(zoom: Zoom | null): void;
  setYRange(yRange: YRange | null): void;
}

/** The view domain: what the person chose to see, independent of which run is open. */
export const useViewStore = create<ViewState>()((set) => ({
  range: 'published',
  visible: Object.fromEntries(RATE_SERIES.map((series) => [series.key, true])) as Record<RateKey, boolean>,
  overlay: true,
  smoothing: DEFAULT_SMOOTHING,
  showRaw: true,
  zoom: null,
  yRange: null,
  // A new range starts unzoomed (the zoomed sessions may not be in it).
  setRange: (range) => set({ range, zoom: null }),
  toggleSeries: (key) => set((state) => ({ visible: { ...state.visible, [key]: !state.visible[key] } })),
  setOverlay: (overlay) => set({ overlay }),
  setSmoothing: (smoothing) => set({ smoothing }),
  setShowRaw: (showRaw) => set({ showRaw }),
  setZoom: (zoom) => set({ zoom }),
  setYRange: (yRange) => set({ yRange }),
}));
