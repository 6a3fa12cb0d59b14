import { useEffect, useLayoutEffect, useRef } from 'react';
import type { DragEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { LogPanel } from './components/LogPanel';
import { OpenRunInput } from './components/OpenRunButton';
import { Sidebar } from './components/Sidebar';
import { TopBar } from './components/TopBar';
import { useAppStore } from './stores/appStore';
import { useAwaitingStore } from './stores/awaitingStore';
import { useReferenceStore } from './stores/referenceStore';
import { useLabRunStore } from './stores/labRunStore';
import { usePageStore } from './stores/pageStore';
import { useRunStore } from './stores/runStore';
import { useRunningStore } from './stores/runningStore';
import { useCompareStore } from './stores/compareStore';
import { CompareView } from './views/CompareView';
import { CurveView } from './views/CurveView';
import { EmptyView } from './views/EmptyView';
import { ErrorView } from './views/ErrorView';
import { LaunchView } from './views/LaunchView';
import { LiveView } from './views/LiveView';
import { windowTitle } from './lib/runProgress';
import { LabRunView } from './views/LabRunView';

/** The curve viewer's pane: the loaded run, its error, or the invitation to open one. */
function ViewerContent() {
  const { status, run, error } = useRunStore(useShallow((state) => ({ status: state.status, run: state.run, error: state.error })));
  const comparing = useCompareStore((state) => state.comparing);
  if (comparing) return <CompareView />;
  switch (status) {
    case 'empty':
      return <EmptyView />;
    case 'loading':
      return <div className="loading">Loading…</div>;
    case 'error':
      return error === null ? <EmptyView /> : <ErrorView error={error} />;
    case 'loaded':
      return run === null ? <EmptyView /> : <CurveView run={run} />;
  }
}

function MainContent() {
  const problem = useAppStore((state) => state.problem);
  const page = usePageStore((state) => state.page);
  const labRun = useLabRunStore((state) => state.run);
  if (problem !== null) {
    return (
      <div className="error-view" role="alert" data-testid="lab-problem">
        <h1>GateLab cannot reach its lab</h1>
        <p className="error-message">{problem}</p>
      </div>
    );
  }
  switch (page) {
    case 'start':
      return <LaunchView />;
    case 'live':
      return <LiveView />;
    case 'run':
      // A live-mode run is shown by its own page (the waiting list and the notification lead here too).
      if (labRun === null) return <LaunchView />;
      return labRun.header.live === null ? <LabRunView run={labRun} /> : <LiveView />;
    case 'viewer':
      return <ViewerContent />;
  }
}

/** The window title names a decision that waits for the person in any run, so it shows in the task bar too. */
function useWindowTitle(): void {
  const awaiting = useAwaitingStore((state) => state.view);
  const title = useLabRunStore((state) => windowTitle(state.run, awaiting));
  useEffect(() => {
    document.title = title;
  }, [title]);
}

export function App() {
  const openFiles = useRunStore((state) => state.openFiles);
  const page = usePageStore((state) => state.page);
  const runDir = useLabRunStore((state) => state.run?.header.runDir ?? null);
  const mainRef = useRef<HTMLElement>(null);
  useWindowTitle();
  // A page, or another run, opens at its top — never at the scroll position of what was shown before.
  useLayoutEffect(() => {
    mainRef.current?.scrollTo(0, 0);
  }, [page, runDir]);
  useEffect(() => {
    const report = (error: unknown) => console.error(error);
    useAppStore.getState().load().catch(report);
    useReferenceStore.getState().load().catch(report);
    useLabRunStore.getState().load().catch(report);
    useAwaitingStore.getState().load().catch(report);
    useRunningStore.getState().load().catch(report);
  }, []);
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    const files = [...event.dataTransfer.files];
    if (files.length > 0) void openFiles(files);
  };
  return (
    <div className="app" onDragOver={(event) => event.preventDefault()} onDrop={onDrop}>
      <TopBar />
      <div className={page === 'viewer' ? 'body with-sidebar' : 'body'}>
        {/* The sidebar is the viewer's (reference runs, what was opened): each page shows its own content. */}
        {page === 'viewer' && <Sidebar />}
        <main className="main" ref={mainRef}>
          <MainContent />
        </main>
      </div>
      <LogPanel />
      <OpenRunInput />
    </div>
  );
}
