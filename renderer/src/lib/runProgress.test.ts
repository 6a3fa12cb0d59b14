import { describe, expect, test } from 'vitest';
import type { CandidateView, RunView } from '../../../src/contract/labRuns';
import { duration, elapsedSeconds, etaSeconds, gateStateText, windowTitle } from './runProgress';

const pointer = { version: 'base', sha256: 'a'.repeat(64) };
const t0 = Date.parse('2026-12-02T17:00:00.000Z');
const iso = (s: number) => new Date(t0 + s * 1000).toISOString();

function run(
  over: {
    phase?: RunView['header']['phase'];
    completed?: number;
    perSession?: number | null;
    sessionSince?: string | null;
    candidates?: Partial<CandidateView>[];
  } = {},
): RunView {
  const completed = over.completed ?? 3;
  return {
    header: {
      runId: 'r1',
      runDir: '/runs/r1',
      recipeName: 'e',
      recipeFile: 'e.yaml',
      seed: 1,
      confirm: 'manual',
      rounds: 3,
      batchTurns: 4,
      windowTurns: 16,
      klCoef: 0,
      maxUpdateNorm: 25,
      phase: over.phase ?? 'running',
      error: null,
      heldBy: null,
      sessions: { planned: 10, completed, accepted: 0, adaptationSession: null, running: completed },
      serving: pointer,
      servedVersions: [pointer],
      startedAt: iso(0),
      lastEventAt: iso(100),
      journalEvents: 9,
      live: null,
      progress: {
        activeSeconds: 100,
        secondsPerSession: over.perSession === undefined ? 30 : over.perSession,
        sessionSince: over.sessionSince === undefined ? iso(100) : over.sessionSince,
        trainerStep: null,
      },
      injections: [],
      update: 1,
    },
    sessions: Array.from({ length: completed }, (_, n) => ({ session: n, at: iso(40 + 30 * n) }) as RunView['sessions'][number]),
    trainerSteps: [],
    refusedSteps: [],
    candidates: (over.candidates ?? []).map(
      (c, i) => ({ id: `c${i + 1}`, state: 'staged', probingRound: null, roundsRequired: 3, heldForPerson: false, ...c }) as CandidateView,
    ),
    servingHistory: [],
  };
}

describe('the progress line', () => {
  test('durations read as a person says them', () => {
    expect([duration(42), duration(725), duration(7380), duration(-3)]).toEqual(['42 s', '12 min 05 s', '2 h 03 min', '0 s']);
  });

  test('elapsed time runs on while the run is live, and stops with it', () => {
    expect(elapsedSeconds(run(), t0 + 130_000)).toBe(130);
    expect(elapsedSeconds(run({ phase: 'stopped' }), t0 + 130_000)).toBe(100);
  });

  test('the ETA: the sessions left at the mean pace so far, less the time into the session in progress', () => {
    // 7 sessions left at 30 s; the newest finished at 100 s, now 110 s: 210 − 10.
    expect(etaSeconds(run(), t0 + 110_000)).toBe(200);
    expect(etaSeconds(run({ perSession: null }), t0 + 110_000)).toBeNull();
    expect(etaSeconds(run({ phase: 'paused' }), t0 + 110_000)).toBeNull();
  });

  test('after a pause the session in progress counts from when the run continued, not from the session before the pause', () => {
    // 7 sessions left at 30 s; the newest finished at 100 s, a pause until 137 s, now 147 s: 210 − 10, not 210 − 30.
    expect(etaSeconds(run({ sessionSince: iso(137) }), t0 + 147_000)).toBe(200);
    expect(elapsedSeconds(run({ sessionSince: iso(137) }), t0 + 147_000)).toBe(110);
    // Paused: the clock stands still.
    expect(elapsedSeconds(run({ phase: 'paused', sessionSince: null }), t0 + 500_000)).toBe(100);
  });

  test('the gate state puts a waiting decision first, and the window title says it', () => {
    const waiting = run({ candidates: [{ state: 'probing', probingRound: 2 }, { state: 'awaiting-confirm' }] });
    expect(gateStateText(waiting)).toBe('c2 awaits your decision');
    // The title counts every run's waiting candidates, not only the one on screen.
    const one = {
      total: 1,
      runs: [
        {
          runId: 'r2',
          runDir: '/runs/r2',
          recipeName: 'e',
          candidates: [{ id: 'c4', version: 'base', passedRounds: 3, probedAgainst: 'base', since: iso(0) }],
        },
      ],
    };
    expect(windowTitle(run(), one)).toBe('(1) c4 awaits you in r2 · GateLab');
    const three = {
      total: 3,
      runs: [...one.runs, { ...one.runs[0]!, runId: 'r3', candidates: [one.runs[0]!.candidates[0]!, { ...one.runs[0]!.candidates[0]!, id: 'c5' }] }],
    };
    expect(windowTitle(null, three)).toBe('(3) 3 candidates await you · GateLab');
    expect(gateStateText(run({ candidates: [{ state: 'probing', probingRound: 2 }] }))).toBe('probing c1, round 2/3');
    expect(gateStateText(run())).toBe('idle, serving base');
    expect(windowTitle(run(), { total: 0, runs: [] })).toBe('GateLab · r1');
    expect(windowTitle(null, { total: 0, runs: [] })).toBe('GateLab');
    const injecting = run();
    const request = {
      kind: 'reward-inverted',
      queuePosition: null,
      requestedAt: iso(0),
      startedAt: iso(1),
      finishedAt: null,
      candidate: null,
      error: null,
      servingBefore: pointer,
    } as const;
    injecting.header.injections = [
      { ...request, id: 'i1', state: 'building' },
      { ...request, id: 'i2', kind: 'nan-inf', state: 'queued', queuePosition: 0, startedAt: null },
    ];
    expect(gateStateText(injecting)).toBe('idle, serving base · injections: building i1 (reward-inverted), 1 queued');
  });
});
