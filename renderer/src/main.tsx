import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { getLab } from './api/labClient';
import { createFrameBatcher } from './lib/frameBatcher';
import { useLogStore } from './stores/logStore';
import { useRunStore } from './stores/runStore';
import './styles.css';

// Lab events feed the stores batched per animation frame: one set per frame, not per event.
const lab = getLab();
if (lab !== null) {
  lab.on('lab.log', createFrameBatcher((entries) => useLogStore.getState().append(entries)));
  lab.on('runs.loaded', createFrameBatcher((summaries) => useRunStore.getState().recordLoaded(summaries)));
}

const container = document.getElementById('root');
if (container === null) throw new Error('index.html has no #root');
createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
