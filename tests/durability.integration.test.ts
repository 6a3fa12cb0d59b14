// docs/design.md, invariant 3, on real processes: `gatelab resume` is SIGKILLed at 20 random
// points of a real run (engine start, a session, a trainer step, a probe
// round, a promotion…), once with a torn journal line left behind, and
// resumed each time. At the end no session is lost or recorded twice, no
// judged turn trained twice, the torn line is gone, the pointer is intact and
// agrees with the journal, and the curve has every session.
import { spawn } from 'node:child_process';
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readJournal } from '../src/core/journal/appendOnlyJournal';
import { journalEventSchema, type JournalEvent } from '../src/core/journal/journalEvents';
import { readServingPointer } from '../src/core/journal/servingPointer';
import { foldGateState } from '../src/core/gate/gateState';
import { createRun } from '../src/run/createRun';
import { createRng } from '../src/core/tasks/rng';
import { gatelabCli, repoRoot, writeTestRecipe } from './helpers/testRecipe';

// Enough sessions that 20 kills, each after a little progress, end well before the run does.
const SESSIONS = 24;
const KILLS = 20;

function resume(runDir: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', gatelabCli, 'resume', '--run', runDir], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

async function journal(runDir: string): Promise<{ events: JournalEvent[]; droppedTornLine: boolean }> {
  return readJournal(path.join(runDir, 'journal.jsonl'), journalEventSchema);
}

/** How far the run has got: events other than resumes (a resume is not progress), sessions, resumes. */
async function progress(runDir: string): Promise<{ events: number; sessions: number; resumes: number }> {
  const { events } = await journal(runDir);
  return {
    events: events.filter((e) => e.type !== 'run-resumed').length,
    sessions: events.filter((e) => e.type === 'session-completed').length,
    resumes: events.filter((e) => e.type === 'run-resumed').length,
  };
}

type KillPoint = { events: number } | { sessions: number } | { resumes: number };

/**
 * Resolves 'kill' as soon as the run has got to `point` (polled every 50 ms), or after `maxMs`.
 * Only the run's progress decides, never wall time: a fast machine gets no further between
 * kills than a busy one, and a busy one is only slower.
 */
async function killPoint(runDir: string, point: KillPoint, maxMs: number): Promise<'kill'> {
  const started = Date.now();
  while (Date.now() - started < maxMs) {
    const now = await progress(runDir);
    if ('events' in point ? now.events >= point.events : 'sessions' in point ? now.sessions >= point.sessions : now.resumes >= point.resumes) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return 'kill';
}

describe('a run killed with SIGKILL at 20 random points', () => {
  let root: string;
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('resumes each time and ends with every session exactly once', async () => {
    root = await mkdtemp(path.join(tmpdir(), 'gatelab-durability-'));
    const recipe = await writeTestRecipe(root, {
      sessions: SESSIONS,
      maxTurns: 3,
      maxTokens: 32,
      batchTurns: 4,
      probeProblems: 2,
      probeMaxTokens: 32,
      confirm: 'auto',
      // Let candidates through (near-base ones pass) so promotions happen between kills.
      floors: { gold_rate: 0, answered_rate: 0 },
      margins: { pass_rate: 1, gold_rate: 1, answered_rate: 1, mean_violations: 100 },
    });
    const runDir = await createRun(recipe, path.join(root, 'run'), {});
    const rng = createRng(20_260_914);
    let tornWritten = false;
    let killed = 0;

    while (killed < KILLS) {
      const before = (await journal(runDir)).events.length;
      const reached = await progress(runDir);
      const proc = resume(runDir);
      // Kill points are drawn in the run's own progress: every fourth kill lands in start-up
      // (once the resume is journaled, before its engines and trainer are up), every fourth
      // once one more session completed (so the kills spread through the run), the others once
      // the run journaled 1–2 more events (a step, a candidate, a probe round, a promotion…).
      const exited = proc.exited.then((code) => ({ exited: code }));
      const point: KillPoint =
        killed % 4 === 3
          ? { resumes: reached.resumes + 1 }
          : killed % 4 === 1
            ? { sessions: reached.sessions + 1 }
            : { events: reached.events + 1 + Math.floor(rng.next() * 2) };
      const outcome = await Promise.race([exited, killPoint(runDir, point, 300_000)]);
      if (outcome !== 'kill') {
        // The run finished before this kill point: nothing left to interrupt.
        expect(outcome.exited, proc.output()).toBe(0);
        break;
      }
      proc.child.kill('SIGKILL');
      await proc.exited;
      killed++;

      // After every kill: the journal reads, the pointer file is whole and names a version that served.
      const { events } = await journal(runDir);
      expect(events.length).toBeGreaterThanOrEqual(before);
      const pointer = await readServingPointer(runDir);
      const gate = foldGateState(3, events);
      expect(gate.servedVersions.map((p) => p.version)).toContain(pointer?.version);

      if (!tornWritten && killed === 7) {
        // A crash in the middle of an append: half an event, no newline.
        await appendFile(path.join(runDir, 'journal.jsonl'), '{"seq":999999,"at":"2026-01-01T00:00:00.000Z","type":"session-compl');
        expect((await journal(runDir)).droppedTornLine).toBe(true);
        tornWritten = true;
      }
    }
    expect(killed).toBe(KILLS);
    // The kills landed inside the run, not only during start-up.
    const beforeLast = (await journal(runDir)).events;
    expect(beforeLast.filter((e) => e.type === 'session-completed').length).toBeGreaterThanOrEqual(3);

    const last = resume(runDir);
    expect(await last.exited, last.output()).toBe(0);

    const { events, droppedTornLine } = await journal(runDir);
    expect(droppedTornLine).toBe(false);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    // Every session exactly once.
    const sessions = events.flatMap((e) => (e.type === 'session-completed' ? [e.session] : []));
    expect([...sessions].sort((a, b) => a - b)).toEqual(Array.from({ length: SESSIONS }, (_, i) => i));
    // Judged turns consumed once each, in order, in whole batches.
    const steps = events.filter((e) => e.type === 'trainer-step' || e.type === 'trainer-step-refused');
    steps.forEach((s, i) => expect(s.samplesThrough).toBe(4 * (i + 1)));
    const samples = events.reduce((n, e) => n + (e.type === 'session-completed' ? e.samples.count : 0), 0);
    expect(steps.length).toBe(Math.floor(samples / 4));
    const versions = events.flatMap((e) => (e.type === 'trainer-step' ? [e.candidate.version] : []));
    expect(new Set(versions).size).toBe(versions.length);
    // The pointer agrees with the journal; the curve has every session.
    const gate = foldGateState(3, events);
    expect(await readServingPointer(runDir)).toEqual(gate.pointer);
    const curve = (await readFile(path.join(runDir, 'curve.csv'), 'utf8')).trim().split('\n');
    expect(curve).toHaveLength(SESSIONS + 1);
    expect(events.filter((e) => e.type === 'run-resumed').length).toBeGreaterThan(0);
    expect(events.at(-1)?.type).toBe('run-completed');
  }, 900_000);
});
