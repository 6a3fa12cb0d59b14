import { beforeEach, describe, expect, test } from 'vitest';
import { create } from 'zustand';
import { followRequests, usePageStore } from './pageStore';

type Run = { header: { runDir: string; live: unknown } } | null;

function stores() {
  const viewer = create<{ status: string }>()(() => ({ status: 'empty' }));
  const labRun = create<{ run: Run }>()(() => ({ run: null }));
  return { viewer, labRun };
}

describe('which page shows', () => {
  beforeEach(() => usePageStore.setState({ page: 'start', chosen: false }));

  test('the run the lab had open at start-up shows when nothing was asked for yet', () => {
    const { viewer, labRun } = stores();
    const stop = followRequests({ viewer, labRun });
    labRun.setState({ run: { header: { runDir: '/runs/a', live: null } } });
    expect(usePageStore.getState().page).toBe('run');
    stop();
  });

  test("the person's click wins over the lab's later answer", () => {
    const { viewer, labRun } = stores();
    const stop = followRequests({ viewer, labRun });
    usePageStore.getState().show('viewer');
    labRun.setState({ run: { header: { runDir: '/runs/a', live: null } } });
    expect(usePageStore.getState().page).toBe('viewer');
    stop();
  });

  test('another run opened while one is shown shows the run; a curve opened shows the viewer', () => {
    const { viewer, labRun } = stores();
    const stop = followRequests({ viewer, labRun });
    labRun.setState({ run: { header: { runDir: '/runs/a', live: null } } });
    usePageStore.getState().show('start');
    labRun.setState({ run: { header: { runDir: '/runs/b', live: null } } });
    expect(usePageStore.getState().page).toBe('run');
    viewer.setState({ status: 'loaded' });
    expect(usePageStore.getState().page).toBe('viewer');
    stop();
  });

  test('a live-mode run shows the Live page, a run of the recipe’s tasks the run page', () => {
    const { viewer, labRun } = stores();
    const stop = followRequests({ viewer, labRun });
    labRun.setState({ run: { header: { runDir: '/runs/live', live: { serving: null, open: [] } } } });
    expect(usePageStore.getState().page).toBe('live');
    labRun.setState({ run: { header: { runDir: '/runs/b', live: null } } });
    expect(usePageStore.getState().page).toBe('run');
    stop();
  });
});
