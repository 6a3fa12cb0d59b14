import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { judgeRound } from '../core/gate/roundVerdict';
import type { ProbeMetrics } from '../core/gate/probeMetrics';
import type { JournalEvent } from '../core/journal/journalEvents';
import { loadRecipe } from '../core/recipe/loadRecipe';
import { observeSession } from '../core/metrics/curve';
import { judgeReply } from '../core/judge/criterion';
import { buildRunView, roundChecks } from './runView';
import type { SessionDetail } from './runView';

const RECIPE = fileURLToPath(new URL('../../recipes/embedded-gsm8k-style.yaml', import.meta.url));
const base = { version: 'base', sha256: 'a'.repeat(64) };
const metrics = (over: Partial<ProbeMetrics>): ProbeMetrics => ({
  n: 8,
  pass_rate: 0.5,
  clean_rate: 0.5,
  gold_rate: 0.75,
  answered_rate: 1,
  mean_violations: 1,
  mean_chars: 300,
  ...over,
});
const margins = { pass_rate: 0.125, gold_rate: 0.125, answered_rate: 0, mean_violations: 0.25 };
const floors = { gold_rate: 0.5, answered_rate: 0.75 };

describe('round checks shown per metric', () => {
  test("agree with the gate's own verdict, metric by metric", () => {
    const cases: [Partial<ProbeMetrics>, Partial<ProbeMetrics>][] = [
      [{}, {}],
      [{ gold_rate: 0.5 }, { gold_rate: 0.75 }],
      [{ gold_rate: 0.25 }, { gold_rate: 0.25 }], // the floor, though no regression against serving
      [{ answered_rate: 0.875 }, {}],
      [{ mean_violations: 1.5 }, {}],
      [{ mean_violations: 1.25, pass_rate: 0.375 }, {}],
    ];
    for (const [candidate, serving] of cases) {
      const c = metrics(candidate);
      const s = metrics(serving);
      const checks = roundChecks(c, s, margins, floors);
      const failed = judgeRound(c, s, margins, floors).metrics;
      expect(
        checks
          .filter((x) => !x.ok)
          .map((x) => x.metric)
          .sort(),
        JSON.stringify(candidate),
      ).toEqual([...failed].sort());
    }
  });

  test('limits: serving minus the margin, or the floor when it is higher; violations at most serving plus the margin', () => {
    const checks = roundChecks(metrics({ gold_rate: 0.25 }), metrics({ gold_rate: 0.5, mean_violations: 2 }), margins, floors);
    expect(checks.find((c) => c.metric === 'gold_rate')).toMatchObject({ limit: 0.5, floor: 0.5, direction: 'min', ok: false });
    expect(checks.find((c) => c.metric === 'pass_rate')).toMatchObject({ limit: 0.375, floor: null, ok: true });
    expect(checks.find((c) => c.metric === 'mean_violations')).toMatchObject({ limit: 2.25, direction: 'max', ok: true });
  });
});

describe('the run view from a journal', () => {
  test('sessions, steps, candidates with what served when staged and decided, and the serving history', async () => {
    const { recipe } = await loadRecipe(RECIPE);
    const at = (s: number) => new Date(Date.UTC(2026, 11, 2, 17, 0, s)).toISOString();
    const reply = '**Answer**: 3 + 4 = 7 and 7 * 2 = 14, so 14.';
    const verdict = judgeReply(reply, 14);
    const sessionEvent = (seq: number, session: number): JournalEvent => ({
      seq,
      at: at(seq),
      type: 'session-completed',
      session,
      taskId: `hw-${session}`,
      accepted: verdict.accepted,
      turns: 3,
      versions: ['base', 'base', 'base'],
      transcript: `sessions/00${session}.json`,
      samples: { file: `samples/00${session}.json`, sha256: 'c'.repeat(64), count: 2 },
      curve: { ...observeSession({ session, firstReply: reply, verdict, turns: 3 }) },
    });
    const good = { version: 'v1-dddddddd', sha256: 'd'.repeat(64) };
    const round = (seq: number, id: string, n: number): JournalEvent[] => [
      { seq, at: at(seq), type: 'candidate-probing', id, round: n, seed: n },
      {
        seq: seq + 1,
        at: at(seq + 1),
        type: 'probe-round',
        id,
        round: n,
        seed: n,
        passed: true,
        failing: [],
        candidate: metrics({}),
        serving: { ...metrics({}), version: 'base' },
        replies: `gate/${id}/r${n}.json`,
      },
    ];
    const events: JournalEvent[] = [
      { seq: 0, at: at(0), type: 'run-started', runId: 'r', recipeFile: RECIPE, recipe, baseVersion: base },
      sessionEvent(1, 0),
      {
        seq: 2,
        at: at(2),
        type: 'candidate-staged',
        id: 'c1',
        version: 'v0-eeeeeeee',
        sha256: 'e'.repeat(64),
        blob: 'weights/blobs/e.safetensors',
        source: { kind: 'inject', badKind: 'nan-inf' },
      },
      { seq: 3, at: at(3), type: 'candidate-rejected', id: 'c1', reason: { code: 'non-finite', detail: '3 NaN/Inf values' }, pointer: base },
      sessionEvent(4, 1),
      {
        seq: 5,
        at: at(5),
        type: 'trainer-step',
        step: 1,
        samplesThrough: 16,
        samples: 16,
        stats: { loss: 0.5, pg: 0.4, opd: 0.1, kl: 0, klCoef: 0, gradNorm: 1, updateNorm: 2 },
        candidate: { ...good, blob: 'weights/blobs/d.safetensors' },
      },
      { seq: 6, at: at(6), type: 'candidate-staged', id: 'c2', ...good, blob: 'weights/blobs/d.safetensors', source: { kind: 'trainer', step: 1 } },
      { seq: 7, at: at(7), type: 'candidate-verified', id: 'c2', evidence: { updateNorm: 2 } },
      ...round(8, 'c2', 1),
      ...round(10, 'c2', 2),
      ...round(12, 'c2', 3),
      { seq: 14, at: at(14), type: 'candidate-awaiting-confirm', id: 'c2' },
      { seq: 15, at: at(15), type: 'candidate-confirmed', id: 'c2', by: 'person' },
      { seq: 16, at: at(16), type: 'candidate-promoted', id: 'c2', pointer: good, previous: base },
      { seq: 17, at: at(17), type: 'serving-rolled-back', pointer: base, previous: good, by: 'person' },
    ];
    const detail: SessionDetail = {
      question: 'q',
      gold: 14,
      firstReply: reply,
      verdict: { ...verdict, markers: [...verdict.markers], failures: [...verdict.failures], shownWork: [...verdict.shownWork] },
      reaction: 'redo',
      reward: -1,
      hint: { text: 'Drop the bold.', accepted: true },
      version: 'base',
      live: null,
    };
    const view = buildRunView({
      runDir: path.join('/runs', 'r'),
      events,
      details: new Map([
        [0, detail],
        [1, detail],
      ]),
      liveness: { phase: 'running', error: null, heldBy: null, running: 2, injections: [], serving: null, update: 7 },
    });
    expect(view.header).toMatchObject({ phase: 'running', update: 7, serving: base, sessions: { planned: 72, completed: 2, accepted: 0, running: 2 } });
    expect(view.header.servedVersions.map((p) => p.version)).toEqual(['base', 'v1-dddddddd']);
    expect(view.sessions.map((s) => [s.session, s.curve.bold, s.verdict.markers.length])).toEqual([
      [0, 1, 1],
      [1, 1, 1],
    ]);
    expect(view.sessions[0]).toMatchObject({ reward: -1, hint: { text: 'Drop the bold.', accepted: true } });
    expect(view.trainerSteps).toMatchObject([{ step: 1, loss: 0.5, kl: 0, afterSessions: 2, version: 'v1-dddddddd' }]);
    const [c1, c2] = view.candidates;
    expect(c1).toMatchObject({
      id: 'c1',
      state: 'rejected',
      verifiedAt: null,
      reason: { code: 'non-finite', metric: null },
      servingAtStage: base,
      servingAtDecision: base,
      stagedAfterSessions: 1,
    });
    expect(c2).toMatchObject({
      id: 'c2',
      state: 'promoted',
      passedRounds: 3,
      confirmedBy: 'person',
      updateNorm: 2,
      servingAtStage: base,
      servingAtDecision: good,
      stagedAfterSessions: 2,
    });
    expect(c2!.rounds.map((r) => r.checks.every((c) => c.ok))).toEqual([true, true, true]);
    expect(view.servingHistory.map((h) => [h.kind, h.from.version, h.to.version, h.by, h.afterSessions])).toEqual([
      ['promoted', 'base', 'v1-dddddddd', 'person', 2],
      ['rolled-back', 'v1-dddddddd', 'base', 'person', 2],
    ]);
  });
});
