// The viewer opens whatever the lab writes: a run's gate.csv, written from
// its journal by runReport.gateCsv, loads in the viewer with the candidates
// rejected before any probe round as "not measured" (empty cells, null
// rates), Reef's files still load, and a malformed file is still refused
// whole with its file, line and column.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BAD_CANDIDATE_KINDS } from '../contract';
import { REPO_ASSETS_DIR } from '../contract/testing/contractSuite';
import type { ProbeMetrics } from '../core/gate/probeMetrics';
import type { JournalEvent } from '../core/journal/journalEvents';
import { formatCurveCsv } from '../core/metrics/curveCsv';
import { curveRows } from '../core/metrics/curve';
import { gateCsv } from '../run/runReport';
import { loadRunFromTexts } from './runFiles';
import { labErrorOf } from './testing/labErrorOf';

const at = '2026-01-01T00:00:00.000Z';
const base = { version: 'base', sha256: 'b'.repeat(64) };
const metrics = (x: number): ProbeMetrics => ({ n: 8, pass_rate: x, clean_rate: x, gold_rate: x, answered_rate: 1, mean_violations: 1 - x, mean_chars: 300 });
const source = { kind: 'files' as const, id: 'files:test', title: 'test' };

/** A journal in which every bad kind was injected and rejected where the real gate rejects it. */
function everyKindRejected(): JournalEvent[] {
  const events: JournalEvent[] = [{ seq: 0, at, type: 'run-started', runId: 'r', recipeFile: 'x', recipe: {}, baseVersion: base }];
  const add = (e: Record<string, unknown>) => events.push({ seq: events.length, at, ...e } as JournalEvent);
  const verifyCode = { 'random-noise': 'update-norm', 'nan-inf': 'non-finite', 'wrong-shape': 'tensor-spec', 'corrupted-bytes': 'hash-mismatch' } as const;
  BAD_CANDIDATE_KINDS.forEach((badKind, i) => {
    const id = `c${i + 1}`;
    const sha256 = String(i + 1).repeat(64);
    add({
      type: 'candidate-staged',
      id,
      version: `v0-${sha256.slice(0, 8)}`,
      sha256,
      blob: `weights/blobs/${sha256}.safetensors`,
      source: { kind: 'inject', badKind },
    });
    if (badKind === 'reward-inverted' || badKind === 'collapsed') {
      add({ type: 'candidate-verified', id, evidence: { updateNorm: 3 } });
      add({ type: 'candidate-probing', id, round: 1, seed: 5 });
      add({
        type: 'probe-round',
        id,
        round: 1,
        seed: 5,
        passed: false,
        failing: ['pass_rate'],
        candidate: metrics(0),
        serving: { ...metrics(0.5), version: 'base' },
        replies: `gate/${id}/round-1-seed-5.json`,
      });
      add({ type: 'candidate-rejected', id, reason: { code: 'regression', detail: 'round 1: pass_rate', metric: 'pass_rate' }, pointer: base });
    } else {
      add({ type: 'candidate-rejected', id, reason: { code: verifyCode[badKind], detail: badKind }, pointer: base });
    }
  });
  return events;
}

const curve = formatCurveCsv(
  curveRows(
    [0, 1, 2].map((session) => ({
      session,
      accept: 0,
      bold: 1,
      bullets: 0,
      numbered: 1,
      no_shown_work: 0,
      no_gold_answer: 0,
      turns: 3,
      first_reply_chars: 400,
    })),
  ),
);

describe("the viewer reads the lab's own gate.csv", () => {
  test('a run that rejected every bad kind opens: candidates rejected before probing are "not measured"', () => {
    const gate = gateCsv(everyKindRejected(), 3);
    // Four kinds never reach a probe: their rates are empty cells.
    expect(gate.split('\n').filter((line) => /^0,reject,,,,,/.test(line))).toHaveLength(4);
    const run = loadRunFromTexts(
      [
        { name: 'curve.csv', text: curve },
        { name: 'gate.csv', text: gate },
      ],
      source,
    );
    expect(run.gate?.steps).toHaveLength(6);
    const unmeasured = run.gate?.steps.filter((s) => s.clean_rate === null) ?? [];
    expect(unmeasured).toHaveLength(4);
    for (const row of unmeasured) expect(row).toEqual({ step: 0, outcome: 'reject', clean_rate: null, best: null, answered_rate: null, gold_rate: null });
    const probed = run.gate?.steps.filter((s) => s.clean_rate !== null) ?? [];
    expect(probed).toEqual([
      { step: 0, outcome: 'reject', clean_rate: 0, best: 0.5, answered_rate: 1, gold_rate: 0 },
      { step: 0, outcome: 'reject', clean_rate: 0, best: 0.5, answered_rate: 1, gold_rate: 0 },
    ]);
  });

  test("Reef's gate.csv still opens, every rate measured", () => {
    const dir = join(REPO_ASSETS_DIR, 'reference', '2026-09-14-qwen3.5-9b-gated');
    const run = loadRunFromTexts(
      ['curve.csv', 'gate.csv'].map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8') })),
      source,
    );
    expect(run.gate?.steps).toHaveLength(67);
    expect(run.gate?.steps.every((s) => s.clean_rate !== null && s.best !== null && s.gold_rate !== null && s.answered_rate !== null)).toBe(true);
  });

  test('a malformed gate.csv is still refused whole, naming file, line and column', () => {
    const lines = gateCsv(everyKindRejected(), 3).split('\n');
    // A rate that is not a number.
    const text = lines.map((line, i) => (i === 5 ? line.replace(/^0,reject,/, '0,reject,high') : line)).join('\n');
    const error = labErrorOf(() =>
      loadRunFromTexts(
        [
          { name: 'curve.csv', text: curve },
          { name: 'g.csv', text },
        ],
        source,
      ),
    );
    expect(error.code).toBe('invalid-csv');
    expect(error.details).toMatchObject({ file: 'g.csv', line: 6, column: 3, columnName: 'clean_rate' });
  });

  test('only a rejection can be unmeasured: a select with an empty rate is refused', () => {
    const text = 'step,outcome,clean_rate,best,answered_rate,gold_rate\n1,reject,,,,\n2,select,0.5,,1.0,0.5\n';
    const error = labErrorOf(() =>
      loadRunFromTexts(
        [
          { name: 'curve.csv', text: curve },
          { name: 'g.csv', text },
        ],
        source,
      ),
    );
    expect(error.details).toMatchObject({ file: 'g.csv', line: 3, column: 4, columnName: 'best' });
    expect(error.message).toMatch(/a selected candidate must have been measured/);
  });
});
