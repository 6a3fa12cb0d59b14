import { useEffect, useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { LoadedRun } from '../../../src/contract/runs';
import { AcceptStrip } from '../components/AcceptStrip';
import { CurveChart } from '../components/CurveChart';
import { GatePanel } from '../components/GatePanel';
import { SessionTable } from '../components/SessionTable';
import { SummaryTiles } from '../components/SummaryTiles';
import { ViewControls } from '../components/ViewControls';
import { sessionsInRange } from '../lib/chartData';
import { bytes, shortHash } from '../lib/format';
import { useReferenceStore } from '../stores/referenceStore';
import { useViewStore } from '../stores/viewStore';
import { useCompareStore } from '../stores/compareStore';
import { smoothingLabel } from '../lib/smoothing';

/** The loaded run: header, summary, learning curve, per-session verdicts, gate decisions, session table. */
export function CurveView({ run }: { run: LoadedRun }) {
  const { published, overlayRun, loadOverlay, references } = useReferenceStore(
    useShallow((state) => ({ published: state.published, overlayRun: state.overlay, loadOverlay: state.loadOverlay, references: state.runs })),
  );
  const { range, visible, overlayOn, smoothing, showRaw, zoom, setZoom } = useViewStore(
    useShallow((state) => ({
      range: state.range,
      visible: state.visible,
      overlayOn: state.overlay,
      smoothing: state.smoothing,
      showRaw: state.showRaw,
      zoom: state.zoom,
      setZoom: state.setZoom,
    })),
  );
  // Another run starts unzoomed.
  useEffect(() => setZoom(null), [run.summary.id, setZoom]);
  const addToComparison = useCompareStore((state) => state.addLoaded);
  const isReference = run.summary.sourceKind === 'reference';
  const reference = isReference ? (references.find((r) => r.id === run.summary.id) ?? null) : null;
  useEffect(() => {
    if (!isReference && overlayOn) void loadOverlay();
  }, [isReference, overlayOn, loadOverlay]);

  const publishedSessions = published?.curveSessions ?? 36;
  const tableRows = useMemo(() => sessionsInRange(run.sessions, range, publishedSessions), [run.sessions, range, publishedSessions]);
  const overlay = !isReference && overlayOn && overlayRun !== null ? overlayRun.sessions : null;
  const { summary } = run;

  return (
    <div className="curve-view" data-testid="curve-view" data-run-id={summary.id}>
      <header className="run-header with-actions">
        <div>
          <h1 data-testid="run-title">{summary.title}</h1>
          <div className="run-files">
            <span className={`badge ${isReference ? 'badge-reference' : 'badge-files'}`}>{isReference ? 'reference' : 'opened file'}</span>
            {run.files.map((file) => (
              <span key={file.name + file.role} className="file-chip" title={`sha256 ${file.sha256}`}>
                <strong>{file.name}</strong> {file.role} · {bytes(file.bytes)} · <code>{shortHash(file.sha256)}</code>
              </span>
            ))}
            {run.gate === null && <span className="file-chip muted">no gate.csv</span>}
          </div>
        </div>
        <div className="run-actions">
          <button
            type="button"
            className="button secondary"
            data-testid="compare-start"
            title="Overlay this run with others (run folders, Open run…), each named by its run"
            onClick={() => addToComparison(run)}
          >
            Compare with other runs…
          </button>
        </div>
      </header>

      {run.warnings.length > 0 && (
        <div className="warnings" role="status" data-testid="run-warnings">
          <strong>The derived columns disagree with the per-session columns</strong> (the curve is drawn from the file as written):
          <ul>
            {run.warnings.map((warning) => (
              <li key={warning}>{warning}</li>
            ))}
          </ul>
        </div>
      )}

      <SummaryTiles run={run} published={published} reference={reference} />
      {reference !== null && (
        <section className="card reference-note" data-testid="reference-note">
          <p>
            <strong>This run</strong> — {reference.description} {reference.outcome}
          </p>
          {published !== null && (
            <p className="muted">
              <strong>The session-{published.adaptationSession} marker</strong> — {published.source}
            </p>
          )}
        </section>
      )}

      <section className="card">
        <header className="card-header">
          <h3>Learning curve</h3>
          <span className="card-meta">smoothing: {smoothingLabel(smoothing)} · x: session (as numbered in curve.csv)</span>
        </header>
        <ViewControls
          sessionCount={summary.sessionCount}
          publishedSessions={publishedSessions}
          overlayAvailable={!isReference}
          overlayTitle={overlayRun?.summary.title ?? null}
          adaptationSession={summary.adaptationSession}
        />
        {published !== null && (
          <CurveChart
            title={run.summary.title}
            smoothing={smoothing}
            showRaw={showRaw}
            zoom={zoom}
            onZoom={setZoom}
            sessions={run.sessions}
            overlay={overlay}
            overlayTitle={overlayRun?.summary.title ?? null}
            range={range}
            visible={visible}
            published={published}
            adaptationSession={summary.adaptationSession}
          />
        )}
        <div className="strip-title">Per-session verdict on the first reply (green: accepted)</div>
        <AcceptStrip
          sessions={run.sessions}
          range={range}
          publishedSessions={publishedSessions}
          zoom={zoom}
          markers={{ published: published?.adaptationSession ?? null, adapted: summary.adaptationSession }}
        />
      </section>

      {run.gate !== null && <GatePanel steps={run.gate.steps} />}

      <SessionTable columns={run.columns} rows={tableRows} />
    </div>
  );
}
