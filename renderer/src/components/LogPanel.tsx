import { useState } from 'react';
import { useLogStore } from '../stores/logStore';

/** The lab's log (lab.log events), newest last; collapsed to its last line by default. */
export function LogPanel() {
  const entries = useLogStore((state) => state.entries);
  const [open, setOpen] = useState(false);
  const last = entries.at(-1);
  return (
    <footer className={`log-panel${open ? ' open' : ''}`} data-testid="log-panel">
      <button type="button" className="log-toggle" onClick={() => setOpen(!open)} aria-expanded={open}>
        {open ? '▾' : '▸'} Lab log ({entries.length})
      </button>
      {!open && last !== undefined && (
        <span className={`log-line log-${last.level}`}>
          <time>{last.at.slice(11, 19)}</time> {last.message}
        </span>
      )}
      {open && (
        <ol className="log-entries">
          {entries.map((entry, index) => (
            <li key={index} className={`log-line log-${entry.level}`}>
              <time>{entry.at.slice(11, 19)}</time> <span className="log-level">{entry.level}</span> {entry.message}
            </li>
          ))}
        </ol>
      )}
    </footer>
  );
}
