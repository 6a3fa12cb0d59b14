import { describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../core/journal/journalEvents';
import { chooseBatch, excludedSessionIds, pendingIncluded, versionsTrainedOn } from './sessionExclusion';

const of = (...sessions: number[]) => sessions.map((n) => ({ sessionId: `r/session-${n}` }));
const at = '2026-01-01T00:00:00.000Z';
const sha = 'a'.repeat(64);

describe('session exclusion', () => {
  it('chooses the same batch and window as before when nothing is excluded', () => {
    const all = of(0, 0, 1, 1, 2, 2);
    expect(chooseBatch(all, { consumed: 2, trainFrom: 0, batchTurns: 2, window: 3, excluded: new Set() })).toEqual({ positions: [1, 2, 3], through: 4 });
    expect(chooseBatch(all, { consumed: 5, trainFrom: 0, batchTurns: 2, window: 3, excluded: new Set() })).toBeUndefined();
  });

  it('skips excluded turns in the batch and the window, and counts past them', () => {
    const all = of(0, 1, 2, 2, 3, 4);
    const excluded = new Set(['r/session-1', 'r/session-2']);
    expect(pendingIncluded(all, 2, excluded)).toBe(2);
    expect(chooseBatch(all, { consumed: 2, trainFrom: 0, batchTurns: 2, window: 3, excluded })).toEqual({ positions: [0, 4, 5], through: 6 });
    // A window never reaches behind trainFrom (a refused batch).
    expect(chooseBatch(all, { consumed: 2, trainFrom: 1, batchTurns: 2, window: 3, excluded })).toEqual({ positions: [4, 5], through: 6 });
  });

  it('reads exclusions from the journal and names the candidates already trained on a session', () => {
    const events: JournalEvent[] = [
      { seq: 0, at, type: 'run-started', runId: 'r', recipeFile: 'x', recipe: {}, baseVersion: { version: 'base', sha256: sha } },
      ...[0, 1, 2].map((session, i): JournalEvent => ({
        seq: 1 + i,
        at,
        type: 'session-completed',
        session,
        taskId: 't',
        accepted: false,
        turns: 1,
        versions: ['base'],
        transcript: 't',
        samples: { file: 's', sha256: sha, count: 1 },
        curve: {},
      })),
      {
        seq: 4,
        at,
        type: 'trainer-step',
        step: 1,
        samplesThrough: 2,
        samples: 2,
        sessionIds: ['r/session-0', 'r/session-1'],
        stats: {},
        candidate: { version: 'v1-aaaaaaaa', sha256: sha, blob: 'b' },
      },
      { seq: 5, at, type: 'trainer-step', step: 2, samplesThrough: 3, samples: 1, stats: {}, candidate: { version: 'v2-bbbbbbbb', sha256: sha, blob: 'b' } },
      { seq: 6, at, type: 'session-excluded', session: 1, reason: 'mine', trainedIn: ['v1-aaaaaaaa'] },
    ];
    expect(excludedSessionIds(events)).toEqual(new Set(['r/session-1']));
    // Step 1 names its sessions; step 2 (no names) counts by position: past session 1's start.
    expect(versionsTrainedOn(events, 1)).toEqual(['v1-aaaaaaaa', 'v2-bbbbbbbb']);
    expect(versionsTrainedOn(events, 2)).toEqual(['v2-bbbbbbbb']);
  });
});
