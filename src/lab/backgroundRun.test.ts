import path from 'node:path';
import { describe, expect, test } from 'vitest';
import type { RunPhase } from '../contract';
import type { JournalEvent } from '../core/journal/journalEvents';
import { loadRecipe } from '../core/recipe/loadRecipe';
import { planOpen, refusalWhileRunning, runningRun, runningView, runsSessions } from './backgroundRun';

const run = (runDir: string, phase: RunPhase) => ({ runDir, phase });

describe('the run this lab runs and the run on screen', () => {
  test('only the phases in which sessions run here count as running', () => {
    for (const phase of ['starting', 'running', 'pausing', 'paused', 'stopping'] as const) expect(runsSessions(run('/r/a', phase))).toBe(true);
    for (const phase of ['stopped', 'completed', 'failed', 'viewing', 'gate-only'] as const) expect(runsSessions(run('/r/a', phase))).toBe(false);
    expect(runsSessions(null)).toBe(false);
  });

  test('opening another folder while a run runs on screen parks that run in the background, untouched', () => {
    const live = run('/r/live', 'running');
    expect(planOpen(live, null, '/r/other')).toEqual({ kind: 'open', park: live, leaving: null });
    // Paused or still starting, it runs here all the same.
    const paused = run('/r/live', 'paused');
    expect(planOpen(paused, null, '/r/other')).toEqual({ kind: 'open', park: paused, leaving: null });
  });

  test('opening another folder over a folder nothing runs lets the one on screen go, the background run stays', () => {
    const viewing = run('/r/old', 'gate-only');
    const background = run('/r/live', 'running');
    expect(planOpen(viewing, background, '/r/other')).toEqual({ kind: 'open', park: null, leaving: viewing });
    expect(planOpen(null, null, '/r/other')).toEqual({ kind: 'open', park: null, leaving: null });
    // A finished run on screen is let go like any folder.
    const done = run('/r/done', 'completed');
    expect(planOpen(done, null, '/r/other')).toEqual({ kind: 'open', park: null, leaving: done });
  });

  test('opening the background run brings it back and lets the one on screen go; the paths are compared resolved', () => {
    const viewing = run('/r/old', 'viewing');
    const background = run('/r/live', 'running');
    expect(planOpen(viewing, background, '/r/x/../live')).toEqual({ kind: 'bring-back', run: background, leaving: viewing });
  });

  test('opening the run that runs on screen keeps it (its view is sent again whole)', () => {
    const live = run('/r/live', 'running');
    expect(planOpen(live, null, '/r/live/')).toEqual({ kind: 'stay', run: live });
  });

  test('two runs of sessions at once is a bug, refused rather than losing one from sight', () => {
    expect(() => planOpen(run('/r/a', 'running'), run('/r/b', 'running'), '/r/c')).toThrow(/two runs of sessions/);
  });

  test('the running run is the background one, else the one on screen while it runs sessions', () => {
    const background = run('/r/live', 'running');
    const viewing = run('/r/old', 'viewing');
    expect(runningRun(viewing, background)).toBe(background);
    expect(runningRun(background, null)).toBe(background);
    expect(runningRun(viewing, null)).toBeNull();
    expect(runningRun(null, null)).toBeNull();
  });

  test('a second run is refused with the reason, naming the one that runs', () => {
    expect(refusalWhileRunning(run('/r/live-seed1', 'paused'), 'start another run')).toBe(
      'live-seed1 is paused in this lab (one run at a time); stop it before you start another run',
    );
    expect(refusalWhileRunning(null, 'start another run')).toBeNull();
  });

  test('what the top bar shows of the running run comes from its journal', async () => {
    const { recipe } = await loadRecipe(path.join(import.meta.dirname, '..', '..', 'recipes', 'embedded-gsm8k-style.yaml'));
    const base = { version: 'base', sha256: 'b'.repeat(64) };
    const at = '2026-01-01T00:00:00.000Z';
    const events: JournalEvent[] = [
      { seq: 0, at, type: 'run-started', runId: 'r', recipeFile: 'x', recipe, baseVersion: base },
      {
        seq: 1,
        at,
        type: 'session-completed',
        session: 0,
        taskId: 'hw-0',
        accepted: true,
        turns: 2,
        versions: ['base'],
        transcript: 'x',
        samples: { file: 'x', sha256: 'c'.repeat(64), count: 2 },
        curve: {},
      },
    ] as JournalEvent[];
    expect(runningView({ runDir: '/runs/live-seed1', phase: 'running', events })).toEqual({
      runId: 'live-seed1',
      runDir: '/runs/live-seed1',
      recipeName: recipe.name,
      phase: 'running',
      sessionsCompleted: 1,
      sessionsPlanned: recipe.tasks.sessions,
      live: false,
    });
  });
});
