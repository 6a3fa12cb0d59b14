import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { getLab } from './api/labClient';
import { createFrameBatcher } from './lib/frameBatcher';
import { useAwaitingStore } from './stores/awaitingStore';
import { useLabRunStore } from './stores/labRunStore';
import { useLogStore } from './stores/logStore';
import { followRequests, usePageStore } from './stores/pageStore';
import { useRunStore } from './stores/runStore';
import { useRunningStore } from './stores/runningStore';
import { useWorkersStore } from './stores/workersStore';
import { followTheme } from './stores/themeStore';
import './theme.css';
import './styles.css';
import './runStyles.css';
import './storyStyles.css';
import './chartStyles.css';
import './liveStyles.css';

// Lab events feed the stores batched per animation frame: one set per frame, not per event.
const lab = getLab();
if (lab !== null) {
  lab.on(
    'lab.log',
    createFrameBatcher((entries) => useLogStore.getState().append(entries)),
  );
  lab.on(
    'runs.loaded',
    createFrameBatcher((summaries) => useRunStore.getState().recordLoaded(summaries)),
  );
  // A live run streams patches; a frame's worth is applied in one store update.
  lab.on(
    'labRuns.changed',
    createFrameBatcher((patches) => useLabRunStore.getState().applyPatches(patches)),
  );
  // The candidates waiting in every run the lab follows: each event carries the whole list.
  lab.on(
    'labRuns.awaitingChanged',
    createFrameBatcher((views) => useAwaitingStore.getState().apply(views)),
  );
  // The run this lab runs, on screen or in the background: the whole view each time.
  lab.on(
    'labRuns.runningChanged',
    createFrameBatcher((views) => useRunningStore.getState().apply(views)),
  );
  // A waiting candidate's OS notification was clicked (Electron): show it, opening its run if needed.
  lab.on('labRuns.reviewRequested', ({ runDir, candidate }) => {
    usePageStore.getState().show('run');
    void useLabRunStore.getState().review(runDir, candidate);
  });
  // Each workers.changed carries the whole list: a frame's worth collapses to the newest.
  lab.on(
    'workers.changed',
    createFrameBatcher((views) => useWorkersStore.getState().apply(views)),
  );
}
followRequests({ viewer: useRunStore, labRun: useLabRunStore });
followTheme(document.documentElement);

const container = document.getElementById('root');
if (container === null) throw new Error('index.html has no #root');
createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
