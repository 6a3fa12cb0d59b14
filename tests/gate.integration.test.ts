// Bad-candidate injection against the real gate (docs/design.md, Injected bad candidates):
// the real probe engine (its own process), the embedded recipe's margins and
// floors, the real policy. A healthy candidate passes its three rounds and
// waits for a person; meanwhile each of the six bad kinds goes through
// staging and must end rejected with its reason, the serving pointer
// unchanged and the waiting candidate still waiting. Serving is the base
// model, which answers in AI style: the probes start at the style floor.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BadCandidateKind, RejectionCode } from '../src/core/gate/candidateVocabulary';
import { readServingPointer } from '../src/core/journal/servingPointer';
import { LiveRun } from '../src/run/liveRun';
import { createRun } from '../src/run/createRun';
import { createRng } from '../src/core/tasks/rng';
import { serializeSafetensors } from '../src/core/weights/safetensors';
import { loraModuleFromPeft } from '../src/core/weights/adapterSpec';
import { peftAdapterConfig } from '../src/core/weights/peftAdapterFormat';
import { WeightStore } from '../src/core/weights/weightStore';
import type { CandidateRecord } from '../src/core/gate/gateState';
import { writeTestRecipe } from './helpers/testRecipe';

const expected: Record<BadCandidateKind, readonly RejectionCode[]> = {
  'nan-inf': ['non-finite'],
  'wrong-shape': ['tensor-spec'],
  'corrupted-bytes': ['hash-mismatch'],
  // Random weights of a size no trainer step reaches: the norm bound stops them first.
  'random-noise': ['update-norm'],
  // Well-formed and within the norm bound: only the probe rounds can catch these.
  'reward-inverted': ['regression'],
  collapsed: ['regression'],
};

async function settled(c: CandidateRecord): Promise<CandidateRecord> {
  while (c.state.kind === 'staged' || c.state.kind === 'verified' || c.state.kind === 'probing') await new Promise((r) => setTimeout(r, 100));
  return c;
}

describe('bad candidates through the real gate', () => {
  let root: string;
  let run: LiveRun;
  let waiting: CandidateRecord;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'gatelab-gate-it-'));
    // The recipe's margins; the gold floor is off because this test is about the
    // gate, not about how well the embedded policy copies numbers (answered and
    // every regression check stay on).
    const recipe = await writeTestRecipe(root, { sessions: 1, probeProblems: 4, confirm: 'manual', floors: { gold_rate: 0, answered_rate: 0.75 } });
    run = await LiveRun.open(await createRun(recipe, path.join(root, 'run'), {}), { mode: 'gate' });
    // A healthy candidate: a real adapter with tiny values, as close to the base as an update gets.
    const rng = createRng(3);
    const tensors = new Map(
      run.verify.spec.map((s) => [s.name, { shape: s.shape, data: Float32Array.from({ length: s.shape[0] * s.shape[1] }, () => (rng.next() - 0.5) * 1e-4) }]),
    );
    const stored = await new WeightStore(path.join(run.runDir, 'weights')).put({
      blob: serializeSafetensors(tensors, { format: 'pt', lora_alpha: String(run.recipe.trainer.lora.alpha), r: String(run.recipe.trainer.lora.rank) }),
      adapterConfig: peftAdapterConfig(
        { rank: run.recipe.trainer.lora.rank, alpha: run.recipe.trainer.lora.alpha, targets: run.recipe.trainer.lora.target_modules.map(loraModuleFromPeft) },
        run.modelDir,
      ),
      manifest: {
        kind: 'trainer',
        baseModelSha256: run.status().serving.sha256,
        step: 1,
        dataRange: { sessions: [], turns: 0 },
        loss: null,
        lora: { rank: run.recipe.trainer.lora.rank, alpha: run.recipe.trainer.lora.alpha, targets: [...run.recipe.trainer.lora.target_modules] },
      },
    });
    waiting = await settled(
      await run.gate.stage({
        version: stored.version,
        sha256: stored.sha256,
        blob: path.relative(run.runDir, stored.path),
        source: { kind: 'trainer', step: 1 },
      }),
    );
  }, 600_000);

  afterAll(async () => {
    await run?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('a healthy candidate passes three paired rounds and waits for a person', () => {
    expect(waiting.state.kind).toBe('awaiting-confirm');
    expect(waiting.rounds.map((r) => r.passed)).toEqual([true, true, true]);
    // The base answers in AI style: serving starts at the style floor.
    for (const r of waiting.rounds) expect(r.serving.clean_rate).toBeLessThanOrEqual(0.25);
  });

  it.each(Object.keys(expected) as BadCandidateKind[])(
    'rejects an injected %s candidate, pointer unchanged, the waiting one still waiting',
    async (kind) => {
      const before = await readServingPointer(run.runDir);
      const c = await settled(await run.inject({ kind }));
      expect(c.source).toEqual({ kind: 'inject', badKind: kind });
      expect(c.state.kind).toBe('rejected');
      if (c.state.kind !== 'rejected') return;
      expect(expected[kind]).toContain(c.state.reason.code);
      expect(c.state.reason.detail.length).toBeGreaterThan(0);
      if (c.state.reason.code === 'regression') {
        // Rejected on correctness or completeness or markers, never on the style rate alone.
        expect(c.state.reason.metric).toBeDefined();
        const failed = c.rounds.find((r) => !r.passed)!;
        expect(failed.serving.version).toBe('base');
        expect(failed.serving.clean_rate).toBeLessThanOrEqual(0.25);
        // The collapsed adapter must really answer nothing; a near-base one could fail a round by chance.
        if (kind === 'collapsed') expect(failed.candidate.answered_rate).toBeLessThan(0.75);
      }
      expect(await readServingPointer(run.runDir)).toEqual(before);
      expect(run.gate.pointer).toEqual(before);
      expect(waiting.state.kind).toBe('awaiting-confirm');
    },
    600_000,
  );

  it('the waiting candidate is still the person’s to confirm, and then serves', async () => {
    await run.confirm(waiting.id);
    expect((await readServingPointer(run.runDir))?.version).toBe(waiting.version);
  }, 120_000);
});
