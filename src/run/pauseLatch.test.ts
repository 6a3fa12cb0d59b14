import { describe, expect, it } from 'vitest';
import type { RunJournal } from '../core/journal/runJournal';
import { PauseLatch } from './pauseLatch';

/** A journal double that records what the latch appends. */
function recordingJournal(): { journal: RunJournal; types: string[] } {
  const types: string[] = [];
  const journal = { append: async (event: { type: string }) => void types.push(event.type) } as unknown as RunJournal;
  return { journal, types };
}

describe('the pause latch', () => {
  it('holds the loop at its next point until released, journaling the pause and the continuation', async () => {
    const latch = new PauseLatch();
    const { journal, types } = recordingJournal();
    const reached = latch.request();
    let passed = false;
    const point = latch.point(journal, () => false).then(() => (passed = true));
    await reached;
    expect(types).toEqual(['run-paused']);
    expect(passed).toBe(false);
    latch.release();
    await point;
    expect(types).toEqual(['run-paused', 'run-continued']);
  });

  it('passes straight through when no pause was asked for, or when stopping', async () => {
    const latch = new PauseLatch();
    const { journal, types } = recordingJournal();
    await latch.point(journal, () => false);
    void latch.request();
    await latch.point(journal, () => true);
    expect(types).toEqual([]);
  });

  it('a stop while paused ends the stretch without run-continued', async () => {
    const latch = new PauseLatch();
    const { journal, types } = recordingJournal();
    let stopping = false;
    const reached = latch.request();
    const point = latch.point(journal, () => stopping);
    await reached;
    stopping = true;
    latch.release();
    await point;
    expect(types).toEqual(['run-paused']);
  });

  it('a pause asked for as the loop ends resolves at once', async () => {
    const latch = new PauseLatch();
    const reached = latch.request();
    latch.loopEnded();
    await expect(reached).resolves.toBeUndefined();
  });
});
