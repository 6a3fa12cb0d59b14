/**
 * The TypeScript trainer (objective + grad.onnx + AdamW) against the
 * independent torch-autograd reference's golden vectors (tools/trainer/reference.py).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frozenBaseScores } from './frozenBaseScores';
import type { GradGraph } from './gradGraph';
import { loadGolden, relativeError } from './goldenFixture';
import { LoraTrainer } from './loraTrainer';
import { parseTokenBatch } from './tokenSample';

const fx = loadGolden();
const { golden } = fx;

describe.each([
  ['f64', 1e-5],
  ['f32', 1e-3],
] as const)('golden vectors, %s grad graph', (dtype, tolerance) => {
  let graph: GradGraph;
  beforeAll(async () => {
    graph = await fx.openGraph(dtype);
  });
  afterAll(async () => {
    await graph.release();
  });

  const trainer = () => new LoraTrainer(graph, fx.adapter(), { objective: fx.objective, optimizer: fx.optimizer, maxTokensPerCall: 16 });

  it('scores the OPD teacher and the KL reference with the frozen base as the reference does', async () => {
    const samples = parseTokenBatch(golden.samples, fx.shape.vocabSize);
    const scores = await frozenBaseScores(graph, samples, { needBase: true, temperature: fx.objective.temperature, maxTokensPerCall: 16 });
    scores.forEach((s, i) => {
      const want = golden.expected.frozenBase[i];
      expect(
        relativeError(
          (s.baseLogprobs ?? []).flatMap((row) => Array.from(row)),
          want?.baseLogprobs.flat() ?? [],
        ),
      ).toBeLessThan(tolerance);
      if (want?.teacherTopLogprobs === null) expect(s.teacherTopLogprobs).toBeNull();
      else expect(relativeError((s.teacherTopLogprobs ?? []).flat(), want?.teacherTopLogprobs.flat() ?? [])).toBeLessThan(tolerance);
    });
  });

  it('matches the loss, its parts and every LoRA gradient', async () => {
    const t = trainer();
    const result = await t.gradients(t.validate(golden.samples));
    expect(result.tokens).toBe(golden.expected.tokens);
    for (const part of ['loss', 'pg', 'opd', 'kl'] as const) {
      expect(Math.abs(result[part] - golden.expected[part]) / Math.abs(golden.expected[part]), part).toBeLessThan(tolerance);
    }
    expect(result.grads.size).toBe(Object.keys(golden.expected.grads).length);
    for (const [key, want] of Object.entries(golden.expected.grads)) {
      expect(relativeError(result.grads.get(key) ?? [], want.data), key).toBeLessThan(tolerance);
    }
  });

  it('takes the same clipped AdamW steps as torch.optim.AdamW', async () => {
    const t = trainer();
    const reports = [];
    for (let s = 0; s < golden.optimizer.steps; s += 1) reports.push(await t.step(golden.samples));
    expect(reports[0]?.clipped).toBe(true);
    expect(Math.abs((reports[0]?.gradNorm ?? 0) - golden.expected.gradNorm) / golden.expected.gradNorm).toBeLessThan(tolerance);
    for (const [key, want] of Object.entries(golden.expected.adapterAfterSteps)) {
      expect(relativeError(t.params.tensors.get(key)?.data ?? [], want.data), key).toBeLessThan(tolerance);
    }
  });
});
