import { describe, expect, test } from 'vitest';
import type { JournalEvent } from '../core/journal/journalEvents';
import type { Recipe } from '../core/recipe/recipeSchema';
import { runProgress, secondsPerSession, sessionSeconds, trainerStepInFlight } from './journalProgress';

const recipe = { trainer: { batch_turns: 4 } } as Recipe;
const base = { version: 'base', sha256: 'b'.repeat(64) };
const candidate = { version: 'v1-aaaaaaaa', sha256: 'a'.repeat(64), blob: 'weights/blobs/a.safetensors' };
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

function journal(entries: ((seq: number) => JournalEvent)[]): JournalEvent[] {
  return entries.map((make, seq) => make(seq));
}
const started =
  (s: number) =>
  (seq: number): JournalEvent => ({ seq, at: t(s), type: 'run-started', runId: 'r', recipeFile: 'x', recipe: {}, baseVersion: base });
const resumed =
  (s: number) =>
  (seq: number): JournalEvent => ({ seq, at: t(s), type: 'run-resumed', pid: 1 });
const paused =
  (s: number) =>
  (seq: number): JournalEvent => ({ seq, at: t(s), type: 'run-paused' });
const continued =
  (s: number) =>
  (seq: number): JournalEvent => ({ seq, at: t(s), type: 'run-continued' });
const completedRun =
  (s: number) =>
  (seq: number): JournalEvent => ({ seq, at: t(s), type: 'run-completed', wallSeconds: s });
const rejected =
  (s: number) =>
  (seq: number): JournalEvent => ({ seq, at: t(s), type: 'candidate-rejected', id: 'c1', reason: { code: 'person', detail: 'x' }, pointer: base });
const session =
  (s: number, n: number, turns: number) =>
  (seq: number): JournalEvent => ({
    seq,
    at: t(s),
    type: 'session-completed',
    session: n,
    taskId: `hw-${n}`,
    accepted: false,
    turns: 2,
    versions: ['base'],
    transcript: 'x',
    samples: { file: 'x', sha256: 'c'.repeat(64), count: turns },
    curve: {},
  });
const step =
  (s: number, n: number, through: number) =>
  (seq: number): JournalEvent => ({ seq, at: t(s), type: 'trainer-step', step: n, samplesThrough: through, samples: 4, stats: {}, candidate });

describe('the progress line', () => {
  test('seconds per session: the newest sessions of the latest stretch, the first of a stretch (engines starting) left out', () => {
    expect(secondsPerSession(journal([started(0), session(30, 0, 2)]))).toBeNull();
    expect(secondsPerSession(journal([started(0), session(30, 0, 2), session(40, 1, 2), session(52, 2, 2)]))).toBe(11);
    // A resume starts a new stretch: the gap while nothing ran does not count.
    expect(secondsPerSession(journal([started(0), session(30, 0, 2), session(40, 1, 2), resumed(500), session(530, 2, 2), session(536, 3, 2)]))).toBe(6);
  });

  test('a pause is not session time: the ETA and the elapsed time leave it out', () => {
    // Sessions of 10 s; a 37 s pause after session 1; the session after it took 10 s of running.
    const events = journal([started(0), session(30, 0, 2), session(40, 1, 2), paused(41), continued(78), session(88, 2, 2), session(98, 3, 2)]);
    expect(secondsPerSession(events)).toBe(10);
    expect(sessionSeconds(events)).toBe(30 + 10 + 10 + 10);
    // While paused, no session counts; after it continues, the session in progress counts from then.
    expect(runProgress(events.slice(0, 4), recipe, true).sessionSince).toBeNull();
    expect(runProgress(events.slice(0, 5), recipe, true).sessionSince).toBe(t(78));
    // A crash leaves a stretch without an end: while a resume starts its engines, no session is timed.
    expect(runProgress(events, recipe, true, false).sessionSince).toBeNull();
  });

  test("a finished run's session time stays put: a decision after the run ended adds nothing", () => {
    const events = journal([started(0), session(30, 0, 2), session(40, 1, 2), completedRun(45)]);
    expect(sessionSeconds(events)).toBe(40);
    expect(sessionSeconds(journal([started(0), session(30, 0, 2), session(40, 1, 2), completedRun(45), resumed(900), rejected(960)]))).toBe(40);
    expect(runProgress(events, recipe, true).sessionSince).toBeNull();
  });

  test('the trainer step in flight: a complete batch of judged turns not yet consumed by a step', () => {
    expect(trainerStepInFlight(journal([started(0), session(10, 0, 3)]), recipe)).toBeNull();
    expect(trainerStepInFlight(journal([started(0), session(10, 0, 3), session(20, 1, 2)]), recipe)).toEqual({ step: 1, turns: 4, since: t(20) });
    expect(trainerStepInFlight(journal([started(0), session(10, 0, 3), session(20, 1, 2), step(25, 1, 4)]), recipe)).toBeNull();
    // Two batches were complete: when step 1 lands, step 2 starts at once.
    expect(trainerStepInFlight(journal([started(0), session(10, 0, 5), session(20, 1, 4), step(25, 1, 4)]), recipe)).toEqual({
      step: 2,
      turns: 4,
      since: t(25),
    });
  });

  test('the trainer step is shown only while the run is live', () => {
    const events = journal([started(0), session(10, 0, 4)]);
    expect(runProgress(events, recipe, true).trainerStep).toEqual({ step: 1, turns: 4, since: t(10) });
    expect(runProgress(events, recipe, false)).toEqual({ activeSeconds: 10, secondsPerSession: null, sessionSince: null, trainerStep: null });
  });
});
