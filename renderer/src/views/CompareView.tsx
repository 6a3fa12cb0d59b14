import { useEffect, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { CompareChart, compareSwatchStyle } from '../components/CompareChart';
import { CompareTable } from '../components/CompareTable';
import { RangeControl } from '../components/RangeControl';
import { SmoothingControl } from '../components/SmoothingControl';
import { RATE_SERIES } from '../lib/chartData';
import type { PickedFile } from '../lib/runFolderFiles';
import { smoothingLabel } from '../lib/smoothing';
import { MAX_COMPARED, useCompareStore, type ComparedRun } from '../stores/compareStore';
import { useLaunchStore } from '../stores/launchStore';
import { useReferenceStore } from '../stores/referenceStore';
import { useViewStore } from '../stores/viewStore';

const picked = (list: FileList | null): PickedFile[] => [...(list ?? [])].map((file) => ({ file, relativePath: file.webkitRelativePath }));

/** A compared run's chip: its colour, its name (click to rename), what it reached, and ×. */
function RunChip({ run, index }: { run: ComparedRun; index: number }) {
  const { rename, remove } = useCompareStore(useShallow((s) => ({ rename: s.rename, remove: s.remove })));
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(run.label);
  const commit = () => {
    rename(run.key, draft);
    setEditing(false);
  };
  return (
    <span className="compare-chip" data-testid={`compare-run-${index}`} data-label={run.label} title={`from ${run.origin}`}>
      <span className="swatch" style={compareSwatchStyle(index)} />
      {editing ? (
        <input
          type="text"
          value={draft}
          autoFocus
          aria-label="Run name"
          onChange={(event) => setDraft(event.currentTarget.value)}
          onBlur={commit}
          onKeyDown={(event) => {
            if (event.key === 'Enter') commit();
            if (event.key === 'Escape') setEditing(false);
          }}
        />
      ) : (
        <button
          type="button"
          className="compare-label"
          title="Rename"
          onClick={() => {
            setDraft(run.label);
            setEditing(true);
          }}
        >
          <strong>{run.label}</strong>
        </button>
      )}
      <span className="muted small">
        {run.sessions.length} sessions · {run.adaptationSession === null ? 'not adapted' : `adapted @${run.adaptationSession}`}
      </span>
      <button type="button" aria-label={`Remove ${run.label}`} data-testid="compare-remove" onClick={() => remove(run.key)}>
        ✕
      </button>
    </span>
  );
}

/** How runs get into the comparison: a run folder of the lab, a path, a picked folder, picked files. */
function AddRuns() {
  const { addFolder, addPicked, pending, count } = useCompareStore(
    useShallow((s) => ({ addFolder: s.addFolder, addPicked: s.addPicked, pending: s.pending, count: s.runs.length })),
  );
  const { runs, loadRuns } = useLaunchStore(useShallow((s) => ({ runs: s.runs, loadRuns: s.loadRuns })));
  const [runId, setRunId] = useState('');
  const [path, setPath] = useState('');
  const folderInput = useRef<HTMLInputElement>(null);
  const filesInput = useRef<HTMLInputElement>(null);
  useEffect(() => {
    void loadRuns();
    // React does not know the attribute that turns a file input into a folder picker.
    folderInput.current?.setAttribute('webkitdirectory', '');
  }, [loadRuns]);
  const full = count >= MAX_COMPARED;
  const withCurves = runs.filter((run) => run.sessionsCompleted > 0);
  return (
    <div className="compare-add">
      <label>
        Run folder{' '}
        <select data-testid="compare-folder-select" value={runId} onChange={(event) => setRunId(event.currentTarget.value)}>
          <option value="">choose…</option>
          {withCurves.map((run) => (
            <option key={run.runId} value={run.runId}>
              {run.runId} ({run.sessionsCompleted} sessions)
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        className="button secondary small"
        data-testid="compare-add-folder"
        disabled={runId === '' || pending || full}
        onClick={() => void addFolder({ runId }).then(() => setRunId(''))}
      >
        Add
      </button>
      <input
        type="text"
        placeholder="or a run folder's path"
        value={path}
        onChange={(event) => setPath(event.currentTarget.value)}
        data-testid="compare-path"
      />
      <button
        type="button"
        className="button secondary small"
        disabled={path.trim() === '' || pending || full}
        onClick={() => void addFolder({ path: path.trim() }).then(() => setPath(''))}
      >
        Add path
      </button>
      <button type="button" className="button secondary small" disabled={pending || full} onClick={() => folderInput.current?.click()}>
        Open run folder…
      </button>
      <button type="button" className="button secondary small" disabled={pending || full} onClick={() => filesInput.current?.click()}>
        Open run…
      </button>
      <input
        ref={folderInput}
        type="file"
        hidden
        data-testid="compare-folder-input"
        onChange={(event) => {
          const files = picked(event.currentTarget.files);
          event.currentTarget.value = '';
          if (files.length > 0) void addPicked(files);
        }}
      />
      <input
        ref={filesInput}
        type="file"
        accept=".csv,text/csv"
        multiple
        hidden
        data-testid="compare-files-input"
        onChange={(event) => {
          const files = picked(event.currentTarget.files);
          event.currentTarget.value = '';
          if (files.length > 0) void addPicked(files);
        }}
      />
      {pending && <span className="muted small">reading…</span>}
    </div>
  );
}

/** The curve viewer comparing runs: one series of several runs overlaid, or every series side by side; a table of the runs. */
export function CompareView() {
  const { runs, series, setSeries, layout, setLayout, problem, dismiss, clear } = useCompareStore(
    useShallow((s) => ({
      runs: s.runs,
      series: s.series,
      setSeries: s.setSeries,
      layout: s.layout,
      setLayout: s.setLayout,
      problem: s.problem,
      dismiss: s.dismissProblem,
      clear: s.clear,
    })),
  );
  const published = useReferenceStore((s) => s.published);
  const { range, setRange, smoothing, showRaw, zoom, setZoom, yRange, setYRange } = useViewStore(
    useShallow((s) => ({
      range: s.range,
      setRange: s.setRange,
      smoothing: s.smoothing,
      showRaw: s.showRaw,
      zoom: s.zoom,
      setZoom: s.setZoom,
      yRange: s.yRange,
      setYRange: s.setYRange,
    })),
  );
  const runCount = runs.length;
  // A different set of runs starts unzoomed.
  useEffect(() => setZoom(null), [runCount, setZoom]);
  const longest = Math.max(0, ...runs.map((run) => run.sessions.length));
  const publishedSessions = published?.curveSessions ?? 36;
  const seriesLabel = RATE_SERIES.find((s) => s.key === series)?.label ?? '';
  // The sessions the range shows across the runs (before any zoom): the typed ranges' bounds.
  const sessionNumbers = runs.flatMap((run) => run.sessions.map((row) => row.session)).filter((session) => range === 'all' || session < publishedSessions);
  const first = sessionNumbers.length === 0 ? 0 : Math.min(...sessionNumbers);
  const last = sessionNumbers.length === 0 ? 0 : Math.max(...sessionNumbers);
  return (
    <div className="curve-view" data-testid="compare-view" data-runs={runs.length} data-layout={layout}>
      <header className="run-header with-actions">
        <div>
          <h1>Comparing runs · {layout === 'overlaid' ? `${seriesLabel.toLowerCase()} rate` : 'every rate, side by side'}</h1>
          <p className="muted small">
            {runs.length} run{runs.length === 1 ? '' : 's'}, each named by its run (click a name to rename it) · smoothing: {smoothingLabel(smoothing)}
          </p>
        </div>
        <div className="run-actions">
          <button type="button" className="button secondary" data-testid="compare-clear" onClick={clear}>
            Stop comparing
          </button>
        </div>
      </header>
      <section className="card">
        <div className="compare-runs">
          {runs.map((run, index) => (
            <RunChip key={run.key} run={run} index={index} />
          ))}
        </div>
        {runs.length > 0 && <CompareTable runs={runs} />}
        <div className="controls">
          <div className="segmented" role="group" aria-label="Layout">
            <button type="button" aria-pressed={layout === 'overlaid'} data-testid="compare-layout-overlaid" onClick={() => setLayout('overlaid')}>
              Overlaid
            </button>
            <button type="button" aria-pressed={layout === 'per-metric'} data-testid="compare-layout-per-metric" onClick={() => setLayout('per-metric')}>
              Side by side per metric
            </button>
          </div>
          {layout === 'overlaid' && (
            <div className="segmented" role="group" aria-label="Series compared">
              {RATE_SERIES.map((s) => (
                <button key={s.key} type="button" aria-pressed={series === s.key} data-testid={`compare-series-${s.raw}`} onClick={() => setSeries(s.key)}>
                  {s.label}
                </button>
              ))}
            </div>
          )}
          <div className="segmented" role="group" aria-label="Sessions shown">
            <button type="button" aria-pressed={range === 'published'} onClick={() => setRange('published')}>
              First {publishedSessions} sessions
            </button>
            <button type="button" aria-pressed={range === 'all'} onClick={() => setRange('all')}>
              All {longest} sessions
            </button>
          </div>
          <SmoothingControl />
        </div>
        {runs.length === 0 ? (
          <p className="muted">Add runs below: they are drawn here, one colour each.</p>
        ) : (
          published !== null &&
          (layout === 'overlaid' ? (
            <CompareChart
              runs={runs}
              series={series}
              smoothing={smoothing}
              showRaw={showRaw}
              range={range}
              published={published}
              zoom={zoom}
              onZoom={setZoom}
            />
          ) : (
            <>
              {first < last && (
                <div className="chart-toolbar">
                  <RangeControl first={first} last={last} zoom={zoom} onZoom={setZoom} yRange={yRange} onYRange={setYRange} />
                </div>
              )}
              <div className="compare-grid" data-testid="compare-grid">
                {RATE_SERIES.map((s) => (
                  <CompareChart
                    key={s.key}
                    runs={runs}
                    series={s.key}
                    smoothing={smoothing}
                    showRaw={showRaw}
                    range={range}
                    published={published}
                    zoom={zoom}
                    onZoom={setZoom}
                    compact
                  />
                ))}
              </div>
            </>
          ))
        )}
        <h4 className="subhead">Add a run</h4>
        <AddRuns />
        {problem !== null && (
          <p className="request-problem" role="alert" data-testid="compare-problem">
            {problem}{' '}
            <button type="button" className="link-button" onClick={dismiss}>
              dismiss
            </button>
          </p>
        )}
      </section>
    </div>
  );
}
