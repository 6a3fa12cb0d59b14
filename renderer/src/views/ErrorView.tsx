import { OpenRunButton } from '../components/OpenRunButton';
import type { RunLoadError } from '../stores/runStore';

/** A run that failed to load: what, where (file, line, column) and the offending line — and no chart. */
export function ErrorView({ error }: { error: RunLoadError }) {
  const { location, excerpt } = error;
  return (
    <div className="error-view" role="alert" data-testid="run-error">
      <h1>{error.title}</h1>
      {location !== null && (
        <p className="error-location" data-testid="run-error-location">
          <strong>{location.file}</strong> — line {location.line}
          {location.column !== null && (
            <>
              , column {location.column}
              {location.columnName !== null && <> ({location.columnName})</>}
            </>
          )}
        </p>
      )}
      <p className="error-message" data-testid="run-error-message">
        {error.message}
      </p>
      {excerpt !== null && (
        <pre className="error-excerpt">
          <span className="gutter">{excerpt.line}</span>
          {excerpt.before}
          {excerpt.cell !== '' && <mark>{excerpt.cell}</mark>}
          {excerpt.cell === '' && location?.column !== null && <mark className="empty-cell">∅</mark>}
          {excerpt.after}
        </pre>
      )}
      <p className="muted">Nothing from this file was drawn. Fix the file and open it again, or open another run.</p>
      <OpenRunButton />
    </div>
  );
}
