import { useShallow } from 'zustand/react/shallow';
import { OpenRunButton } from '../components/OpenRunButton';
import { useReferenceStore } from '../stores/referenceStore';
import { useRunStore } from '../stores/runStore';

export function EmptyView() {
  const { first } = useReferenceStore(useShallow((state) => ({ first: state.runs[0] ?? null })));
  const openReference = useRunStore((state) => state.openReference);
  return (
    <div className="empty-view" data-testid="empty-view">
      <h1>Open a run to inspect its learning curve</h1>
      <p>
        GateLab reads a run&apos;s <code>curve.csv</code> — one row per session, Reef&apos;s columns — and, when you pick it too, the <code>gate.csv</code>{' '}
        beside it. You get the rolling accept, bold, list and style-clean rates, the session where three accepted sessions in a row start (adaptation), the
        published result at session 14 for comparison, and every session&apos;s row.
      </p>
      <div className="empty-actions">
        <OpenRunButton />
        {first !== null && (
          <button type="button" className="button secondary" onClick={() => void openReference(first.id)}>
            Open the Reef reference run
          </button>
        )}
      </div>
      <p className="muted small">You can also drop the files anywhere on this window.</p>
    </div>
  );
}
