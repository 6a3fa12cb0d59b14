import { useShallow } from 'zustand/react/shallow';
import { MAX_EMA_WEIGHT, MAX_WINDOW, smoothingLabel, type Smoothing } from '../lib/smoothing';
import { useViewStore } from '../stores/viewStore';

const KINDS: { kind: Smoothing['kind']; label: string }[] = [
  { kind: 'file', label: "curve.csv's rolling 10" },
  { kind: 'window', label: 'Rolling mean' },
  { kind: 'ema', label: 'EMA (TensorBoard)' },
  { kind: 'none', label: 'None' },
];

/** The first smoothing of a kind a person picks; the parameter is adjusted beside it. */
function initial(kind: Smoothing['kind']): Smoothing {
  switch (kind) {
    case 'file':
      return { kind: 'file' };
    case 'window':
      return { kind: 'window', size: 10 };
    case 'ema':
      return { kind: 'ema', weight: 0.6 };
    case 'none':
      return { kind: 'none' };
  }
}

/** Smoothing as TensorBoard and W&B users know it: a method, its parameter, and the raw series kept faintly. */
export function SmoothingControl() {
  const { smoothing, showRaw, setSmoothing, setShowRaw } = useViewStore(
    useShallow((state) => ({ smoothing: state.smoothing, showRaw: state.showRaw, setSmoothing: state.setSmoothing, setShowRaw: state.setShowRaw })),
  );
  return (
    <div className="smoothing-control" role="group" aria-label="Smoothing" data-testid="smoothing-control" title={smoothingLabel(smoothing)}>
      <label>
        Smoothing{' '}
        <select data-testid="smoothing-kind" value={smoothing.kind} onChange={(event) => setSmoothing(initial(event.currentTarget.value as Smoothing['kind']))}>
          {KINDS.map((k) => (
            <option key={k.kind} value={k.kind}>
              {k.label}
            </option>
          ))}
        </select>
      </label>
      {smoothing.kind === 'window' && (
        <label>
          window{' '}
          <input
            type="number"
            data-testid="smoothing-window"
            min={1}
            max={MAX_WINDOW}
            step={1}
            value={smoothing.size}
            onChange={(event) => {
              const size = Number(event.currentTarget.value);
              if (Number.isInteger(size) && size >= 1 && size <= MAX_WINDOW) setSmoothing({ kind: 'window', size });
            }}
          />{' '}
          sessions
        </label>
      )}
      {smoothing.kind === 'ema' && (
        <label>
          weight{' '}
          <input
            type="range"
            data-testid="smoothing-weight"
            min={0}
            max={MAX_EMA_WEIGHT}
            step={0.01}
            value={smoothing.weight}
            onChange={(event) => setSmoothing({ kind: 'ema', weight: Number(event.currentTarget.value) })}
          />{' '}
          <output className="num">{smoothing.weight.toFixed(2)}</output>
        </label>
      )}
      <label className="toggle">
        <input type="checkbox" data-testid="show-raw" checked={showRaw} onChange={(event) => setShowRaw(event.currentTarget.checked)} /> per-session values,
        faint
      </label>
    </div>
  );
}
