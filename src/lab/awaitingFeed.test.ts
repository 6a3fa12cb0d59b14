import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import type { AwaitingView } from '../contract';
import type { ProbeMetrics } from '../core/gate/probeMetrics';
import type { JournalEvent } from '../core/journal/journalEvents';
import { loadRecipe } from '../core/recipe/loadRecipe';
import { createAwaitingFeed } from './awaitingFeed';
import { createLabEventBus } from './eventBus';

const RECIPE = fileURLToPath(new URL('../../recipes/embedded-gsm8k-style.yaml', import.meta.url));
const base = { version: 'base', sha256: 'a'.repeat(64) };
const metrics: ProbeMetrics = { n: 8, pass_rate: 0.5, clean_rate: 0.5, gold_rate: 0.75, answered_rate: 1, mean_violations: 1, mean_chars: 300 };
const at = (s: number) => new Date(Date.UTC(2026, 11, 5, 2, 0, s)).toISOString();

/** The journal of a candidate that passed its three rounds and waits for a person, from `seq` on. */
function awaitingCandidate(seq: number, id: string, version: string): JournalEvent[] {
  const sha256 = version.slice(3, 11).repeat(8);
  const events: JournalEvent[] = [
    {
      seq,
      at: at(seq),
      type: 'candidate-staged',
      id,
      version,
      sha256,
      blob: `weights/blobs/${id}.safetensors`,
      source: { kind: 'inject', badKind: 'random-noise' },
    },
    { seq: seq + 1, at: at(seq + 1), type: 'candidate-verified', id, evidence: {} },
  ];
  for (const round of [1, 2, 3]) {
    const s = events.length + seq;
    events.push({ seq: s, at: at(s), type: 'candidate-probing', id, round, seed: round });
    events.push({
      seq: s + 1,
      at: at(s + 1),
      type: 'probe-round',
      id,
      round,
      seed: round,
      passed: true,
      failing: [],
      candidate: metrics,
      serving: { ...metrics, version: 'base' },
      replies: `gate/${id}/r${round}.json`,
    });
  }
  const s = events.length + seq;
  events.push({ seq: s, at: at(s), type: 'candidate-awaiting-confirm', id });
  return events;
}

const lines = (events: readonly JournalEvent[]) => events.map((e) => JSON.stringify(e) + '\n').join('');

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function runFolder(parent: string, name: string, events: readonly JournalEvent[]): Promise<string> {
  const dir = path.join(parent, name);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'journal.jsonl'), lines(events));
  return dir;
}

describe('the lab-wide list of waiting candidates', () => {
  test('every run of the runs folder and each folder opened from elsewhere; a decision anywhere goes out as one event', async () => {
    const { recipe } = await loadRecipe(RECIPE);
    const runsDir = await mkdtemp(path.join(tmpdir(), 'gatelab-awaiting-runs-'));
    const elsewhere = await mkdtemp(path.join(tmpdir(), 'gatelab-awaiting-other-'));
    dirs.push(runsDir, elsewhere);
    const started = (runId: string): JournalEvent => ({ seq: 0, at: at(0), type: 'run-started', runId, recipeFile: RECIPE, recipe, baseVersion: base });
    const a = await runFolder(runsDir, 'run-a', [started('run-a'), ...awaitingCandidate(1, 'c1', 'v0-aaaaaaaa')]);
    await runFolder(runsDir, 'run-quiet', [started('run-quiet')]);
    await mkdir(path.join(runsDir, 'not-a-run'));
    const b = await runFolder(elsewhere, 'run-b', [
      started('run-b'),
      ...awaitingCandidate(1, 'c1', 'v0-bbbbbbbb'),
      ...awaitingCandidate(10, 'c2', 'v0-cccccccc'),
    ]);

    const events = createLabEventBus();
    const sent: AwaitingView[] = [];
    events.subscribe((name, payload) => {
      if (name === 'labRuns.awaitingChanged') sent.push(payload as AwaitingView);
    });
    const feed = createAwaitingFeed({ runsDir, events, pollMs: 60_000 });
    try {
      expect(await feed.view()).toMatchObject({
        total: 1,
        runs: [{ runId: 'run-a', runDir: a, candidates: [{ id: 'c1', version: 'v0-aaaaaaaa', passedRounds: 3, probedAgainst: 'base', since: at(9) }] }],
      });
      // A folder opened by path is followed too.
      feed.follow(b);
      const both = await feed.view();
      expect(both.total).toBe(3);
      expect(both.runs.map((r) => [r.runId, r.candidates.map((c) => c.id)])).toEqual([
        ['run-a', ['c1']],
        ['run-b', ['c1', 'c2']],
      ]);
      // Unchanged: no event; a person rejects run-a's c1 (in any process): one event with what is left.
      await feed.refresh();
      expect(sent).toHaveLength(2);
      await appendFile(
        path.join(a, 'journal.jsonl'),
        lines([{ seq: 10, at: at(30), type: 'candidate-rejected', id: 'c1', reason: { code: 'person', detail: 'no' }, pointer: base }]),
      );
      await feed.refresh();
      expect(sent).toHaveLength(3);
      expect(sent.at(-1)).toMatchObject({ total: 2, runs: [{ runId: 'run-b' }] });
    } finally {
      feed.close();
    }
  });
});
