import { useEffect, useRef, useState } from 'react';
import { useAwaitingStore } from '../stores/awaitingStore';
import { useLabRunStore } from '../stores/labRunStore';
import { usePageStore } from '../stores/pageStore';
import { duration } from '../lib/runProgress';
import { useNow } from './useNow';

/**
 * The top bar's count of candidates waiting for the person in every run the
 * lab follows, on every page; its menu lists each one, and one click opens
 * its run and brings its evidence and buttons into view.
 */
export function AwaitingMenu() {
  const view = useAwaitingStore((state) => state.view);
  const review = useLabRunStore((state) => state.review);
  const show = usePageStore((state) => state.show);
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const now = useNow(30_000, open);
  // Closes on Escape or a click anywhere else.
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setOpen(false);
    };
    const onClick = (event: MouseEvent) => {
      if (root.current !== null && !root.current.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('mousedown', onClick);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('mousedown', onClick);
    };
  }, [open]);
  // Emptied while open: closed now (set during render, so a returning candidate never finds it open).
  if (view.total === 0 && open) setOpen(false);
  if (view.total === 0) return null;
  const label = `${view.total} candidate${view.total === 1 ? '' : 's'} await${view.total === 1 ? 's' : ''} your decision`;
  return (
    <div className="awaiting-menu-root" ref={root}>
      <button
        type="button"
        className="awaiting-count"
        data-testid="awaiting-count"
        data-count={view.total}
        aria-haspopup="menu"
        aria-expanded={open}
        title={label}
        onClick={() => setOpen(!open)}
      >
        ⚑ {view.total} awaiting you
      </button>
      {open && (
        <div className="awaiting-menu" role="menu" aria-label={label} data-testid="awaiting-menu">
          {view.runs.map((run) => (
            <div key={run.runDir} className="awaiting-menu-run" role="group" aria-label={run.runId}>
              <div className="awaiting-menu-run-name" title={run.runDir}>
                <code>{run.runId}</code> <span className="muted small">{run.recipeName}</span>
              </div>
              {run.candidates.map((c) => (
                <button
                  key={c.id}
                  type="button"
                  role="menuitem"
                  className="awaiting-menu-item"
                  data-testid={`awaiting-item-${run.runId}-${c.id}`}
                  onClick={() => {
                    setOpen(false);
                    show('run');
                    void review(run.runDir, c.id);
                  }}
                >
                  <strong>{c.id}</strong> <code>{c.version}</code>
                  <span className="muted small">
                    {' '}
                    passed {c.passedRounds} rounds vs <code>{c.probedAgainst}</code> · waiting {duration((now - Date.parse(c.since)) / 1000)}
                  </span>
                </button>
              ))}
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
