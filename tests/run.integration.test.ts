// A real run of the embedded recipe, shortened: real engines (serving and
// probe, separate processes), the real gateway over HTTP, the real trainer
// worker, the real gate. Checks the run's contract, not the model's quality.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEvent } from '../src/core/journal/journalEvents';
import { readServingPointer } from '../src/core/journal/servingPointer';
import { CURVE_COLUMNS } from '../src/core/metrics/curve';
import { GATE_COLUMNS } from '../src/core/metrics/gateCsv';
import { LiveRun } from '../src/run/liveRun';
import { createRun } from '../src/run/createRun';
import type { TurnRecord } from '../src/run/turnLog';
import { writeTestRecipe } from './helpers/testRecipe';

const SESSIONS = 6;

describe('a run of the embedded recipe (shortened)', () => {
  let root: string;
  let runDir: string;
  let events: JournalEvent[];
  let turns: readonly TurnRecord[];

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'gatelab-run-'));
    const recipe = await writeTestRecipe(root, {
      sessions: SESSIONS,
      maxTurns: 3,
      maxTokens: 48,
      batchTurns: 4,
      windowTurns: 6,
      probeProblems: 2,
      probeMaxTokens: 64,
      confirm: 'auto',
    });
    runDir = await createRun(recipe, path.join(root, 'run'), {});
    // The mechanism under test — sessions keep running while a candidate is
    // probed — made deterministic: the first probe round waits until a session
    // completes after it began (a barrier, not a race between two processes).
    // It never waits when no session is left to run, so it cannot deadlock.
    let held: { release: () => void } | undefined;
    let holding = false;
    const run: LiveRun = await LiveRun.open(runDir, {
      beforeProbeRound: async (_id, round) => {
        if (holding || round !== 1 || run.completedSessions().size === SESSIONS) return;
        holding = true;
        const sessionsBefore = run.completedSessions().size;
        await new Promise<void>((release) => {
          held = { release };
          run.journal.onEvent((e) => {
            if (e.type === 'session-completed' && run.completedSessions().size > sessionsBefore) release();
          });
        });
      },
      afterSession: async (session) => {
        if (session === SESSIONS - 1) held?.release();
      },
    });
    try {
      await run.runSessions();
      turns = [...run.servedTurns()];
      events = [...run.journal.events];
    } finally {
      await run.close();
    }
  }, 600_000);

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('runs every session once, in order, each with its transcript and the version of every reply', async () => {
    const sessions = events.filter((e): e is Extract<JournalEvent, { type: 'session-completed' }> => e.type === 'session-completed');
    expect(sessions.map((e) => e.session)).toEqual([0, 1, 2, 3, 4, 5]);
    for (const e of sessions) {
      expect(e.versions).toHaveLength(e.turns);
      expect(e.turns).toBeGreaterThanOrEqual(1);
      expect(e.turns).toBeLessThanOrEqual(3);
      const transcript = JSON.parse(await readFile(path.join(runDir, e.transcript), 'utf8'));
      expect(transcript.turns.map((t: { version: string }) => t.version)).toEqual(e.versions);
      // Every training sample records the version that produced its reply.
      const samples = JSON.parse(await readFile(path.join(runDir, e.samples.file), 'utf8')) as {
        version: string;
        turn: number;
        sample: { sessionId: string };
      }[];
      expect(samples).toHaveLength(e.samples.count);
      for (const s of samples) {
        expect(s.version).toBe(e.versions[s.turn]);
        expect(s.sample.sessionId).toBe(`run/session-${e.session}`);
      }
    }
  });

  it('sends every turn through the gateway with OpenClaw session headers and logs its tokens and version', () => {
    expect(turns.length).toBe(events.filter((e) => e.type === 'session-completed').reduce((n, e) => n + (e.type === 'session-completed' ? e.turns : 0), 0));
    for (const t of turns) {
      expect(t.turnType).toBe('main');
      expect(t.sessionId).toMatch(/^run\/session-\d$/);
      expect(t.response.tokenIds.length).toBe(t.response.logprobs.length);
      expect(t.response.topIds.every((ids) => ids.length === 4)).toBe(true);
      expect(t.version).toMatch(/^(base|v\d+-[0-9a-f]{8})$/);
    }
    // X-Session-Done is sent with the last turn a session may take.
    const last = turns.filter((t) => t.sessionDone);
    expect(last.every((t) => t.messages.filter((m) => m.role === 'assistant').length === 2)).toBe(true);
  });

  it('trains on the judged turns in batches and stages every step’s candidate to the gate', () => {
    const counts = events.flatMap((e) => (e.type === 'session-completed' ? [e.samples.count] : []));
    const total = counts.reduce((a, b) => a + b, 0);
    const steps = events.filter((e) => e.type === 'trainer-step' || e.type === 'trainer-step-refused');
    expect(steps.length).toBe(Math.floor(total / 4));
    steps.forEach((s, i) => expect(s.samplesThrough).toBe(4 * (i + 1)));
    // Each step trains on its 4 new turns and the newest before them, 6 at most.
    steps.forEach((s, i) => expect(s.samples).toBe(Math.min(6, 4 * (i + 1))));
    const staged = events.filter((e) => e.type === 'candidate-staged');
    for (const s of events.filter((e) => e.type === 'trainer-step')) {
      expect(staged.some((c) => c.type === 'candidate-staged' && s.type === 'trainer-step' && c.version === s.candidate.version)).toBe(true);
    }
    // Every candidate got a decision by the end of the run.
    const decided = new Set(
      events.flatMap((e) => (e.type === 'candidate-rejected' || e.type === 'candidate-promoted' || e.type === 'candidate-superseded' ? [e.id] : [])),
    );
    expect(staged.every((c) => c.type === 'candidate-staged' && decided.has(c.id))).toBe(true);
  });

  it('never lets the trainer fall behind the sessions', () => {
    // A session starts only when no step is in flight, so by the time it
    // completes, less than a batch (4 turns) of the turns before it is untrained.
    let turnsBefore = 0;
    let trained = 0;
    for (const e of events) {
      if (e.type === 'trainer-step' || e.type === 'trainer-step-refused') trained = e.samplesThrough;
      if (e.type !== 'session-completed') continue;
      expect(turnsBefore - trained).toBeLessThan(4);
      turnsBefore += e.samples.count;
    }
  });

  it('keeps serving sessions while a candidate is being probed (the first round is held until a session completes)', () => {
    let probing = 0;
    let sessionsDuringProbes = 0;
    for (const e of events) {
      if (e.type === 'candidate-probing' && e.round === 1) probing++;
      if (e.type === 'candidate-rejected' || e.type === 'candidate-awaiting-confirm') probing = Math.max(0, probing - 1);
      if (e.type === 'session-completed' && probing > 0) sessionsDuringProbes++;
    }
    expect(sessionsDuringProbes).toBeGreaterThan(0);
  });

  it('changes the serving pointer only by promotion, and serves only what the pointer names', async () => {
    const promoted = events.flatMap((e) => (e.type === 'candidate-promoted' ? [e.pointer] : []));
    const pointer = await readServingPointer(runDir);
    expect(pointer).toEqual(promoted.at(-1) ?? (events[0]?.type === 'run-started' ? events[0].baseVersion : undefined));
    const servedVersions = new Set(['base', ...promoted.map((p) => p.version)]);
    for (const t of turns) expect(servedVersions.has(t.version)).toBe(true);
  });

  it('writes curve.csv in Reef’s columns, gate.csv with Reef’s columns first, and summary.json', async () => {
    const curve = (await readFile(path.join(runDir, 'curve.csv'), 'utf8')).trim().split('\n');
    expect(curve[0]).toBe(CURVE_COLUMNS.join(','));
    expect(curve).toHaveLength(7);
    const gate = (await readFile(path.join(runDir, 'gate.csv'), 'utf8')).trim().split('\n');
    expect(gate[0]!.split(',').slice(0, 6)).toEqual([...GATE_COLUMNS]);
    const summary = JSON.parse(await readFile(path.join(runDir, 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({ sessions: { completed: 6, planned: 6 }, completed: true });
    expect(summary.wall_seconds).toBeGreaterThan(0);
    expect(typeof summary.rejections).toBe('object');
  });
});

// A crash after the last session was journaled and before the trainer took the
// steps its turns were owed: the resumed run has no session left to run, and
// must still train those turns before it completes.
describe('a resumed run whose sessions are all done', () => {
  let root: string;
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('trains the batches its predecessor left untrained, then completes', async () => {
    root = await mkdtemp(path.join(tmpdir(), 'gatelab-run-untrained-'));
    // Manual confirmation: nothing is promoted, so every session was served by base and the pointer stays base.
    const recipe = await writeTestRecipe(root, {
      sessions: 3,
      maxTurns: 3,
      maxTokens: 48,
      batchTurns: 4,
      probeProblems: 2,
      probeMaxTokens: 64,
      confirm: 'manual',
    });
    const runDir = await createRun(recipe, path.join(root, 'run'), {});
    const first = await LiveRun.open(runDir);
    try {
      await first.runSessions();
    } finally {
      await first.close();
    }
    // The journal as that crash leaves it: the run and its sessions, no trainer step or gate event yet.
    const journalFile = path.join(runDir, 'journal.jsonl');
    const kept = (await readFile(journalFile, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as JournalEvent)
      .filter((e) => e.type === 'run-started' || e.type === 'session-completed')
      .map((e, seq) => ({ ...e, seq }));
    await writeFile(journalFile, kept.map((e) => JSON.stringify(e) + '\n').join(''));
    const samples = kept.reduce((n, e) => n + (e.type === 'session-completed' ? e.samples.count : 0), 0);
    expect(samples).toBeGreaterThanOrEqual(4);

    const resumed = await LiveRun.open(runDir);
    try {
      await resumed.runSessions();
      const events = resumed.journal.events;
      const steps = events.filter((e) => e.type === 'trainer-step');
      expect(steps.map((e) => e.samplesThrough)).toEqual(Array.from({ length: Math.floor(samples / 4) }, (_, i) => 4 * (i + 1)));
      expect(events.filter((e) => e.type === 'session-completed')).toHaveLength(3);
      expect(events.at(-1)?.type).toBe('run-completed');
    } finally {
      await resumed.close();
    }
  }, 600_000);
});
