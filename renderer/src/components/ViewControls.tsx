import { useShallow } from 'zustand/react/shallow';
import { RATE_SERIES, referenceLabel } from '../lib/chartData';
import { PALETTE } from '../lib/palette';
import { useViewStore } from '../stores/viewStore';
import { SmoothingControl } from './SmoothingControl';

/** Range, series and overlay switches; doubles as the chart's legend. */
export function ViewControls({
  sessionCount,
  publishedSessions,
  overlayAvailable,
  overlayTitle,
  adaptationSession,
}: {
  sessionCount: number;
  publishedSessions: number;
  overlayAvailable: boolean;
  overlayTitle: string | null;
  adaptationSession: number | null;
}) {
  const { range, visible, overlay, setRange, toggleSeries, setOverlay } = useViewStore(
    useShallow((state) => ({
      range: state.range,
      visible: state.visible,
      overlay: state.overlay,
      setRange: state.setRange,
      toggleSeries: state.toggleSeries,
      setOverlay: state.setOverlay,
    })),
  );
  return (
    <div className="controls">
      <div className="segmented" role="group" aria-label="Sessions shown">
        <button type="button" aria-pressed={range === 'published'} onClick={() => setRange('published')}>
          First {Math.min(publishedSessions, sessionCount)} sessions
        </button>
        <button type="button" aria-pressed={range === 'all'} onClick={() => setRange('all')}>
          All {sessionCount} sessions
        </button>
      </div>
      <SmoothingControl />
      <div className="legend-row">
        {RATE_SERIES.map((series) => (
          <label key={series.key} className="legend-item toggle">
            <input type="checkbox" checked={visible[series.key]} onChange={() => toggleSeries(series.key)} />
            <span className={`swatch${series.key === 'accept_rate_10' ? ' thick' : ''}`} style={{ background: series.color }} />
            {series.label}
          </label>
        ))}
        {overlayAvailable && (
          <label className="legend-item toggle" title={overlayTitle ?? ''}>
            <input type="checkbox" checked={overlay} onChange={(event) => setOverlay(event.currentTarget.checked)} />
            <span className="swatch dashed" style={{ borderColor: PALETTE.reference }} />
            {referenceLabel(overlayTitle)}
          </label>
        )}
        <span className="legend-item">
          <span className="swatch dashed vertical" style={{ borderColor: PALETTE.published }} />
          Reef published adaptation (another run)
        </span>
        <span className="legend-item">
          <span className="swatch vertical" style={{ background: PALETTE.adapted }} />
          {adaptationSession === null ? 'this run: not adapted' : 'this run adapted'}
        </span>
      </div>
    </div>
  );
}
