import { useEffect, useRef, type ReactNode } from 'react';

/** What a transcript drawer has read: still reading, a message why it could not, or the transcript (its body). */
export type DrawerStatus = 'loading' | 'error' | 'loaded';

/**
 * The drawer a session's transcript opens in — a run's or a live session's:
 * the backdrop and the dialog, its title and the line under it, a close
 * button that takes the focus, Esc to close, and the reading and error
 * states; the body is the caller's.
 */
export function TranscriptDrawerShell({
  label,
  testId,
  closeTestId,
  session,
  status,
  error,
  title,
  meta,
  onClose,
  children,
}: {
  label: string;
  testId: string;
  closeTestId: string;
  session: number;
  status: DrawerStatus;
  error: string | null;
  title: ReactNode;
  meta: ReactNode;
  onClose: () => void;
  children: ReactNode;
}) {
  const closeButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    closeButton.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  return (
    <>
      <div className="drawer-backdrop" onClick={onClose} />
      <aside className="drawer" role="dialog" aria-modal="true" aria-label={label} data-testid={testId} data-session={session} data-status={status}>
        <header className="drawer-header">
          <div>
            <h2>{title}</h2>
            {meta}
          </div>
          <button
            ref={closeButton}
            type="button"
            className="button secondary small"
            data-testid={closeTestId}
            onClick={onClose}
            aria-label="Close the transcript"
          >
            ✕ Close
          </button>
        </header>
        <div className="drawer-body">
          {status === 'loading' ? (
            <p className="muted">Reading the transcript…</p>
          ) : status === 'error' ? (
            <p className="text-bad" role="alert">
              {error}
            </p>
          ) : (
            children
          )}
        </div>
      </aside>
    </>
  );
}
