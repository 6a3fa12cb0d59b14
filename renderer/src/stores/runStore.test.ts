import { beforeEach, describe, expect, test, vi } from 'vitest';
import { LabError } from '../../../src/contract/errors';
import type { LoadedRun } from '../../../src/contract/runs';

// Test double for the lab (unit test of the store's state transitions only;
// the real transports are exercised by the contract suite and the e2e tests).
const openFiles = vi.fn<(params: unknown) => Promise<LoadedRun>>();
const openReference = vi.fn<(params: unknown) => Promise<LoadedRun>>();
vi.mock('../api/labClient', () => ({
  getLab: () => ({ runs: { openFiles, openReference } }),
  labUnavailableReason: () => '',
}));

const { describeLoadError, useRunStore } = await import('./runStore');

const fakeRun = { summary: { id: 'r', title: 'r' } } as unknown as LoadedRun;
const file = (name: string, text: string) => ({ name, size: text.length, text: async () => text }) as unknown as File;

describe('the run store', () => {
  beforeEach(() => {
    useRunStore.setState({ status: 'empty', run: null, error: null, history: [] });
    openFiles.mockReset();
    openReference.mockReset();
  });

  test('a malformed file replaces the run with the error: nothing half-drawn', async () => {
    openReference.mockResolvedValue(fakeRun);
    await useRunStore.getState().openReference('r');
    expect(useRunStore.getState()).toMatchObject({ status: 'loaded', run: fakeRun });

    openFiles.mockRejectedValue(
      new LabError('invalid-csv', 'c.csv: line 2, column 2 (accept): expected 0 or 1', {
        file: 'c.csv',
        line: 2,
        column: 2,
        columnName: 'accept',
        problem: 'expected 0 or 1, found "x"',
      }),
    );
    await useRunStore.getState().openFiles([file('c.csv', 'session,accept\n0,x\n')]);
    const state = useRunStore.getState();
    expect(state.status).toBe('error');
    expect(state.run).toBe(null);
    expect(state.error).toMatchObject({
      message: 'expected 0 or 1, found "x"',
      location: { line: 2, column: 2 },
      excerpt: { line: 2, before: '0,', cell: 'x', after: '' },
    });
  });

  test('a slower earlier load never overwrites a later one', async () => {
    let finishFirst: (run: LoadedRun) => void = () => {};
    openReference.mockReturnValueOnce(new Promise((resolve) => (finishFirst = resolve)));
    const second = { summary: { id: 'second', title: 'second' } } as unknown as LoadedRun;
    openReference.mockResolvedValueOnce(second);
    const first = useRunStore.getState().openReference('first');
    await useRunStore.getState().openReference('second');
    finishFirst(fakeRun);
    await first;
    expect(useRunStore.getState().run).toBe(second);
  });

  test('more than two files are refused before anything is sent', async () => {
    await useRunStore.getState().openFiles([file('a.csv', ''), file('b.csv', ''), file('c.csv', '')]);
    expect(openFiles).not.toHaveBeenCalled();
    expect(useRunStore.getState().error?.message).toMatch(/got 3 files/);
  });

  test('errors without a location keep their message', () => {
    expect(describeLoadError('t', new Error('boom'), null)).toEqual({ title: 't', message: 'boom', location: null, excerpt: null });
  });
});
