import { describe, expect, it } from 'vitest';
import type { JournalEvent } from '../core/journal/journalEvents';
import { sessionTrainings } from './sessionTraining';

const at = '2026-01-01T00:00:00.000Z';
const sha = 'a'.repeat(64);

const completed = (session: number, count: number, curve: Record<string, number> = {}): JournalEvent => ({
  seq: 1 + session,
  at,
  type: 'session-completed',
  session,
  taskId: `live:conversation-${session + 1}`,
  accepted: false,
  turns: 3,
  versions: ['base'],
  transcript: 't',
  samples: { file: 's', sha256: sha, count },
  curve,
});

describe("each session's training, from the journal", () => {
  it('names the steps that used a session, its exclusion, and its judged turns and PRM mean', () => {
    const events: JournalEvent[] = [
      { seq: 0, at, type: 'run-started', runId: 'r', recipeFile: 'x', recipe: {}, baseVersion: { version: 'base', sha256: sha }, live: true },
      completed(0, 2, { judged_turns: 2, trained_turns: 2, prm_mean: 0 }),
      completed(1, 0, { judged_turns: 0, trained_turns: 0, prm_mean: 0 }),
      completed(2, 1, { judged_turns: 1, trained_turns: 1, prm_mean: 1 }),
      {
        seq: 4,
        at,
        type: 'trainer-step',
        step: 1,
        samplesThrough: 2,
        samples: 2,
        sessionIds: ['r/session-0'],
        stats: {},
        candidate: { version: 'v1-aaaaaaaa', sha256: sha, blob: 'b' },
      },
      { seq: 5, at: '2026-01-01T00:01:00.000Z', type: 'session-excluded', session: 0, reason: 'mine', trainedIn: ['v1-aaaaaaaa'] },
      { seq: 6, at, type: 'session-excluded', session: 2, reason: 'also mine', trainedIn: [] },
    ];
    const t = sessionTrainings(events);
    expect(t.get(0)).toEqual({
      judgedTurns: 2,
      samples: 2,
      prmMean: 0,
      trainedIn: [{ step: 1, version: 'v1-aaaaaaaa' }],
      excluded: { at: '2026-01-01T00:01:00.000Z', reason: 'mine', trainedIn: ['v1-aaaaaaaa'] },
    });
    // No judged turn: no mean (the journal's 0 is not a score).
    expect(t.get(1)).toMatchObject({ judgedTurns: 0, samples: 0, prmMean: null, trainedIn: [], excluded: null });
    expect(t.get(2)).toMatchObject({ judgedTurns: 1, prmMean: 1, trainedIn: [], excluded: { reason: 'also mine', trainedIn: [] } });
  });

  it("leaves unknown what a recipe's session does not record", () => {
    const events: JournalEvent[] = [
      { seq: 0, at, type: 'run-started', runId: 'r', recipeFile: 'x', recipe: {}, baseVersion: { version: 'base', sha256: sha } },
      completed(0, 3, { accept: 1 }),
    ];
    expect(sessionTrainings(events).get(0)).toEqual({ judgedTurns: null, samples: 3, prmMean: null, trainedIn: [], excluded: null });
  });
});
