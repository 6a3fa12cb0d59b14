/**
 * The trainer against the real embedded policy (assets/models/policy):
 * - grad.onnx's forward equals decode.onnx's (P = 0), so the trainer's
 *   forward-only passes and its gradients see the same function;
 * - the seam with the engine holds: for a reply the engine generated with the
 *   base model, the trainer — rebuilding the prompt ids, aligning positions,
 *   skipping forced tokens — computes the same log-probs (ratio 1 at step 0)
 *   and the same top-K;
 * - one step on those samples changes the adapter and writes a candidate the
 *   engine can load.
 * Skipped only while the model is not built yet.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuleHintJudge, createRulePrm } from '../../../core/judge/ruleJudge';
import { composeTurnJudge } from '../../../core/judge/turnJudge';
import { startEmbeddedEngine } from '../embeddedPolicy';
import type { StartedEngine } from '../../../processes/rpcEngineClient';
import { parseTaskSet } from '../../../core/tasks/task';
import { Tokenizer } from '../engine/tokenizer';
import { adapterSpec, adapterSpecProblems } from '../../../core/weights/adapterSpec';
import { parseSafetensors } from '../../../core/weights/safetensors';
import { WeightStore } from '../../../core/weights/weightStore';
import { DEFAULT_ADAMW } from './adamw';
import { CandidateTrainer } from './candidateTrainer';
import { judgedFirstReplies } from '../../../../bench/learn/firstReplyRollout';
import { LoraTrainer } from './loraTrainer';
import { DEFAULT_OBJECTIVE } from './objective';
import { RewardInvertedRounds } from './trainerBadCandidates';
import { towardWorseRewards } from '../../../core/judge/badnessRewards';
import { countViolations } from '../../../core/judge/criterion';
import { applyVariant } from '../../../../bench/learn/onPolicySteps';
import { LoraParams } from './loraParams';
import { padRight } from './sequenceBatch';
import { loadTrainerModel, type TrainerModel } from './trainerModel';

// GATELAB_TEST_POLICY_DIR points the test at another build of the policy (e.g. a smoke build).
const MODEL_DIR = process.env.GATELAB_TEST_POLICY_DIR ?? fileURLToPath(new URL('../../../../assets/models/policy/', import.meta.url));
const HOMEWORK = fileURLToPath(new URL('../../../../assets/homework/homework.json', import.meta.url));
const ready = ['grad.onnx', 'decode.onnx', 'base.safetensors', 'manifest.json'].every((f) => existsSync(`${MODEL_DIR}${f}`));

describe.skipIf(!ready)('the trainer on the real policy', () => {
  let model: TrainerModel;
  let engine: StartedEngine;
  beforeAll(async () => {
    model = await loadTrainerModel(MODEL_DIR, { threads: 1 });
    engine = await startEmbeddedEngine({ modelDir: MODEL_DIR, env: { GATELAB_ORT_THREADS: '1' } });
  }, 60_000);
  afterAll(async () => {
    await engine?.client.close();
    await model?.release();
  });

  it('grad.onnx and decode.onnx compute the same logits (padded batch, nonzero LoRA)', async () => {
    expect(model.forward).not.toBe(model.graph);
    const lora = LoraParams.init(model.shape, { rank: 4, alpha: 8, targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] }, 5);
    for (const t of lora.tensors.values()) if (t.part === 'B') t.data.forEach((_, i, a) => (a[i] = Math.sin(i) * 0.02));
    const v = model.shape.vocabSize;
    const batch = padRight([
      { ids: Array.from({ length: 40 }, (_, i) => 7 + ((i * 31) % (v - 7))), responseStart: 1 },
      { ids: Array.from({ length: 23 }, (_, i) => 7 + ((i * 17) % (v - 7))), responseStart: 1 },
    ]);
    const fromDecode = await model.forward.forward(batch, lora);
    const fromGrad = await model.graph.forward(batch, lora);
    let worst = 0;
    let scale = 0;
    for (let b = 0; b < 2; b += 1) {
      const n = b === 0 ? 40 : 23;
      for (let i = b * batch.time * v; i < (b * batch.time + n) * v; i += 1) {
        worst = Math.max(worst, Math.abs((fromDecode[i] as number) - (fromGrad[i] as number)));
        scale = Math.max(scale, Math.abs(fromGrad[i] as number));
      }
    }
    expect(worst / scale).toBeLessThan(1e-4);
  }, 60_000);

  it('agrees with the engine on old log-probs and top-K of its own replies, then trains a loadable candidate', async () => {
    const tokenizer = Tokenizer.fromJson(JSON.parse(readFileSync(`${MODEL_DIR}tokenizer.json`, 'utf8')));
    const tasks = parseTaskSet(JSON.parse(readFileSync(HOMEWORK, 'utf8')), 'homework').tasks.slice(0, 3);
    const replies = await judgedFirstReplies(
      {
        engine: engine.client,
        tokenizer,
        judge: composeTurnJudge(createRulePrm(), createRuleHintJudge()),
        sampling: { temperature: 0.6, topP: 0.95, topK: 20, maxTokens: 200 },
        topK: 4,
      },
      tasks,
      [11, 12, 13],
    );
    const samples = replies.flatMap((r) => (r.sample === null ? [] : [r.sample]));
    expect(samples.length).toBeGreaterThan(0);
    const lora = LoraParams.init(model.shape, { rank: 4, alpha: 8, targets: ['q', 'v'] }, 1); // B = 0: the base
    for (const s of samples) {
      const batch = padRight([{ ids: [...s.promptIds, ...s.responseIds], responseStart: s.promptIds.length }]);
      const logits = await model.forward.forward(batch, lora);
      const v = model.shape.vocabSize;
      for (let t = 0; t < s.responseIds.length; t += 1) {
        const row = logits.subarray((s.promptIds.length - 1 + t) * v, (s.promptIds.length + t) * v);
        let max = -Infinity;
        for (const x of row) max = Math.max(max, x);
        let sum = 0;
        for (const x of row) sum += Math.exp(x - max);
        const lse = max + Math.log(sum);
        expect(Math.abs((row[s.responseIds[t] as number] as number) - lse - (s.logprobs[t] as number)), `sample ${s.sessionId} token ${t}`).toBeLessThan(2e-3);
        expect(s.topIds[t]?.[0]).toBe(row.indexOf(max));
      }
    }

    const dir = await mkdtemp(join(tmpdir(), 'gatelab-real-trainer-'));
    try {
      const trainer = new LoraTrainer(
        model.graph,
        lora,
        { objective: { ...DEFAULT_OBJECTIVE }, optimizer: { ...DEFAULT_ADAMW, lr: 1e-3 }, maxTokensPerCall: 2048 },
        0,
        model.forward,
      );
      const { report, candidate } = await new CandidateTrainer(trainer, new WeightStore(dir), { sha256: model.baseSha256, nameOrPath: MODEL_DIR }).step(
        samples,
      );
      // At step 0 the policy is the sampler: every ratio is 1, so PG = -mean(reward) exactly (up to float32).
      const rewards = samples.flatMap((s) => s.forced.filter((f) => !f).map(() => s.reward));
      expect(report.pg).toBeCloseTo(-rewards.reduce((a, b) => a + b, 0) / rewards.length, 3);
      expect(report.updateNorm).toBeGreaterThan(0);
      expect(await engine.client.setAdapter({ version: candidate.version, sha256: candidate.sha256, path: candidate.path })).toBe(candidate.version);
      await engine.client.setAdapter(null);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('trains a reward-inverted adapter in rounds and stores the last as an injected candidate that fits the adapter spec', async () => {
    const tokenizer = Tokenizer.fromJson(JSON.parse(readFileSync(`${MODEL_DIR}tokenizer.json`, 'utf8')));
    const tasks = parseTaskSet(JSON.parse(readFileSync(HOMEWORK, 'utf8')), 'homework').tasks.slice(0, 4);
    const dir = await mkdtemp(join(tmpdir(), 'gatelab-inverted-test-'));
    try {
      const store = new WeightStore(dir);
      const settings = { rank: 4, alpha: 8, targets: ['q', 'v', 'down'] as Array<'q' | 'v' | 'down'> };
      const rounds = new RewardInvertedRounds(model, settings, store, { sha256: model.baseSha256, nameOrPath: MODEL_DIR });
      const request = { seed: 7, rounds: 2, note: 'reward-inverted: test' };
      let stored = false;
      for (let round = 1; round <= request.rounds; round += 1) {
        const replies = await judgedFirstReplies(
          {
            engine: engine.client,
            tokenizer,
            judge: composeTurnJudge(createRulePrm(), createRuleHintJudge()),
            sampling: { temperature: 0.6, topP: 0.95, topK: 20, maxTokens: 160 },
            topK: 4,
          },
          tasks,
          tasks.map((_, i) => 100 * round + i),
        );
        const markdown = towardWorseRewards(replies.map((r) => countViolations(r.verdict)));
        const samples = replies.flatMap((r, i) =>
          (r.sample === null ? [] : [applyVariant(r.sample, 'reward-inverted', markdown[i])]).filter((x) => x !== null),
        );
        expect(samples.length).toBeGreaterThan(0);
        const result = await rounds.round({ ...request, round }, samples);
        stored = result.stored;
        expect(result.stored).toBe(round === request.rounds);
        if (!result.stored) {
          // A scratch adapter, outside the store's versions, loadable by the rollout engine.
          expect(result.candidate.path.startsWith(join(dir, 'scratch'))).toBe(true);
          expect(await engine.client.setAdapter({ version: result.candidate.version, sha256: result.candidate.sha256, path: result.candidate.path })).toBe(
            result.candidate.version,
          );
          continue;
        }
        expect(result.candidate.manifest).toMatchObject({ kind: 'injected', step: 2, note: 'reward-inverted: test' });
        expect(await store.list()).toEqual([result.candidate.version]);
        const file = parseSafetensors(await readFile(result.candidate.path));
        expect(adapterSpecProblems(file, adapterSpec(model.shape, settings))).toEqual([]);
      }
      expect(stored).toBe(true);
    } finally {
      await engine.client.setAdapter(null);
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
