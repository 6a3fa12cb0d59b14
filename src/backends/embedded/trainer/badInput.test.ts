/**
 * Bad input to the trainer gets a clear error and produces no candidate
 * (docs/design.md, invariant 6): the adapter is unchanged and the weight store stays empty.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WeightStore } from '../../../core/weights/weightStore';
import { CandidateTrainer } from './candidateTrainer';
import { GradGraph } from './gradGraph';
import { GOLDEN_DIR, loadGolden } from './goldenFixture';
import { LoraTrainer } from './loraTrainer';
import { parseTokenBatch, TrainerInputError } from './tokenSample';

const fx = loadGolden();
const good = () => structuredClone(fx.golden.samples) as Array<Record<string, unknown>>;

function refusal(batch: unknown): string {
  try {
    parseTokenBatch(batch, fx.shape.vocabSize);
  } catch (error) {
    expect(error).toBeInstanceOf(TrainerInputError);
    return (error as Error).message;
  }
  throw new Error('the batch was accepted');
}

describe('the sample schema', () => {
  it('accepts the golden batch', () => {
    expect(parseTokenBatch(good(), fx.shape.vocabSize)).toHaveLength(3);
  });

  it('refuses a NaN log-prob, naming the sample, session and position', () => {
    const batch = good();
    (batch[1]?.logprobs as number[])[2] = Number.NaN;
    expect(refusal(batch)).toMatch(/sample 1 \(session golden-1, turn 0\): logprobs\.2 must be a finite number/);
  });

  it('refuses NaN in the top-K log-probs and a null (NaN after JSON) log-prob', () => {
    const batch = good();
    ((batch[0]?.topLogprobs as number[][])[3] as number[])[1] = Number.NaN;
    (batch[2]?.logprobs as Array<number | null>)[0] = null;
    const message = refusal(batch);
    expect(message).toMatch(/sample 0 .*topLogprobs\.3\.1/);
    expect(message).toMatch(/sample 2 .*logprobs\.0/);
  });

  it('refuses mismatched lengths', () => {
    const batch = good();
    (batch[0]?.logprobs as number[]).pop();
    (batch[1]?.forced as boolean[]).push(false);
    const message = refusal(batch);
    expect(message).toMatch(/sample 0 .*logprobs has 6 entries but responseIds has 7/);
    expect(message).toMatch(/sample 1 .*forced has 6 entries but responseIds has 5/);
  });

  it('refuses a ragged top-K', () => {
    const batch = good();
    (batch[0]?.topIds as number[][])[2] = [1, 2, 3];
    expect(refusal(batch)).toMatch(/topIds\.2 has 3 ids; position 0 has K = 4/);
  });

  it('refuses an empty response', () => {
    const batch = good();
    Object.assign(batch[0] as object, { responseIds: [], forced: [], logprobs: [], topIds: [], topLogprobs: [] });
    expect(refusal(batch)).toMatch(/sample 0 .*responseIds the response is empty/);
  });

  it('refuses an all-forced response, a signal-less turn, out-of-vocabulary ids and an empty batch', () => {
    const batch = good();
    (batch[1] as { forced: boolean[] }).forced = [true, true, true, true, true];
    (batch[2] as Record<string, unknown>).hintedPromptIds = undefined;
    (batch[0]?.responseIds as number[])[0] = 999;
    const message = refusal(batch);
    expect(message).toMatch(/sample 1 .*every response token is forced/);
    expect(message).toMatch(/sample 2 .*no training signal/);
    expect(message).toMatch(/sample 0 .*token id 999 is outside the vocabulary \(23\)/);
    expect(refusal([])).toMatch(/non-empty array/);
  });
});

describe('a refused batch produces no candidate', () => {
  let graph: GradGraph;
  let dir: string;
  beforeAll(async () => {
    graph = await fx.openGraph('f32');
    dir = await mkdtemp(join(tmpdir(), 'gatelab-trainer-'));
  });
  afterAll(async () => {
    await graph.release();
    await rm(dir, { recursive: true, force: true });
  });

  it('leaves the adapter and the store untouched, then a good batch makes exactly one version', async () => {
    const trainer = new LoraTrainer(graph, fx.adapter(), { objective: fx.objective, optimizer: fx.optimizer, maxTokensPerCall: 64 });
    const store = new WeightStore(dir);
    const candidates = new CandidateTrainer(trainer, store, { sha256: 'a'.repeat(64), nameOrPath: 'tiny' });
    const before = trainer.params;
    const bad = good();
    (bad[0]?.logprobs as number[])[0] = Number.NaN;
    await expect(candidates.step(bad)).rejects.toThrow(TrainerInputError);
    expect(trainer.params).toBe(before);
    expect(trainer.steps).toBe(0);
    expect(await store.list()).toEqual([]);

    const { candidate, report } = await candidates.step(good());
    expect(report.step).toBe(1);
    expect(await store.list()).toEqual([candidate.version]);
    expect(candidate.version).toMatch(/^v1-[0-9a-f]{8}$/);
  });
});

describe('a grad graph exported for another config', () => {
  it('is refused when it is opened, naming the tensor', async () => {
    const base = new Map(fx.base);
    base.set('model.embed_tokens.weight', { shape: [24, 16], data: new Float64Array(24 * 16) });
    await expect(GradGraph.open(`${GOLDEN_DIR}grad-tiny-f32.onnx`, { ...fx.shape, vocabSize: 24 }, base)).rejects.toThrow(
      /grad.onnx expects model.embed_tokens.weight as \[23,16\], the base has \[24,16\]/,
    );
  });
});
