/**
 * The engine on the real embedded policy (assets/models/policy): no ORT
 * mocks. Skipped only while the model has not been built.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LORA_MODULES, moduleDims } from '../../../core/weights/policyConfig';
import { serializeSafetensors, type Float32Tensor } from '../../../core/weights/safetensors';
import { calculatorCompletion } from './calculator';
import { Engine } from './engine';
import { GenerateParamsSchema, type GenerateParams, type GenerateResult } from './embeddedEngineProtocol';
import { SeededRng } from './sampler';

const modelDir = process.env.GATELAB_TEST_MODEL_DIR ?? fileURLToPath(new URL('../../../../assets/models/policy', import.meta.url));
const haveModel = existsSync(join(modelDir, 'manifest.json'));

const question =
  'My homework is in homework/3.txt. Here it is: "A baker makes 48 rolls and sells 18 of them. He then bakes 3 trays of 12 more. How many rolls does he have now?" Can you help me solve it? Show me the answer first, and don\'t write to the file until I tell you.';

function request(overrides: Partial<GenerateParams> = {}, content = question): GenerateParams {
  return GenerateParamsSchema.parse({ messages: [{ role: 'user', content }], seed: 1, sampling: { maxTokens: 300 }, ...overrides });
}

function maxAbsDiff(a: readonly number[], b: readonly number[]): number {
  expect(a.length).toBe(b.length);
  return a.reduce((m, v, i) => Math.max(m, Math.abs(v - (b[i] as number))), 0);
}

describe.skipIf(!haveModel)('Engine on the embedded policy', () => {
  let engine: Engine;
  const dir = mkdtempSync(join(tmpdir(), 'engine-'));

  beforeAll(async () => {
    engine = await Engine.load(modelDir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A PEFT adapter blob with every module targeted; `fill` gives B's values (A is random). */
  function adapterBlob(seed: number, fillB: (rng: SeededRng) => number) {
    const shape = engine.model.shape;
    const rng = new SeededRng(seed);
    const tensors: Record<string, Float32Tensor> = {};
    const rank = 4;
    for (let layer = 0; layer < shape.numLayers; layer += 1) {
      for (const module of LORA_MODULES) {
        const dims = moduleDims(shape, module);
        const group = module === 'gate' || module === 'up' || module === 'down' ? 'mlp' : 'self_attn';
        const name = `base_model.model.model.layers.${layer}.${group}.${module}_proj`;
        tensors[`${name}.lora_A.weight`] = {
          shape: [rank, dims.in],
          data: Float32Array.from({ length: rank * dims.in }, () => (rng.next() - 0.5) / Math.sqrt(dims.in)),
        };
        tensors[`${name}.lora_B.weight`] = { shape: [dims.out, rank], data: Float32Array.from({ length: dims.out * rank }, () => fillB(rng)) };
      }
    }
    const bytes = serializeSafetensors(tensors, { format: 'pt', lora_alpha: '8', r: String(rank) });
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const path = join(dir, `${sha256}.safetensors`);
    writeFileSync(path, bytes);
    return { version: `v${seed}-${sha256.slice(0, 8)}`, path, sha256 };
  }

  it('reports the model it loaded', () => {
    expect(engine.info.baseSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(engine.info.vocabSize).toBe(engine.model.tokenizer.vocabSize);
  });

  it('gives the same reply for the same seed, bit for bit', async () => {
    const a = await engine.generate(request({ seed: 42 }));
    const b = await engine.generate(request({ seed: 42 }));
    expect(b.tokenIds).toEqual(a.tokenIds);
    expect(b.logprobs).toEqual(a.logprobs);
    expect(b.text).toBe(a.text);
    expect(a.completionTokens).toBe(a.tokenIds.length);
    expect(a.version).toBe('base');
    // Without a seed the engine draws one and reports it; replaying it replays the reply.
    const drawn = await engine.generate(request({ seed: undefined, sampling: { temperature: 1, topP: 1, topK: 0, maxTokens: 40 } }));
    const replayed = await engine.generate(request({ seed: drawn.seed, sampling: { temperature: 1, topP: 1, topK: 0, maxTokens: 40 } }));
    expect(replayed.tokenIds).toEqual(drawn.tokenIds);
  });

  it('decodes with its KV cache exactly what one uncached forward pass scores', async () => {
    const reply = await engine.generate(request({ seed: 7, sampling: { temperature: 1, topP: 1, topK: 0, maxTokens: 200 } }));
    const scored = await engine.score({ messages: request().messages, responseTokenIds: reply.tokenIds, logprobsTopK: 4, adapter: 'loaded' });
    expect(maxAbsDiff(reply.logprobs, scored.logprobs)).toBeLessThan(2e-3);
    expect(scored.topIds.slice(0, 20)).toEqual(reply.topIds.slice(0, 20));
  });

  it('reports raw log-probs: sorted top-K of one normalised distribution, the sampled token among them when it is the argmax', async () => {
    const reply = await engine.generate(request({ seed: 3, logprobsTopK: 5 }));
    reply.topLogprobs.forEach((top, t) => {
      expect(top).toHaveLength(5);
      for (let i = 1; i < top.length; i += 1) expect(top[i]).toBeLessThanOrEqual(top[i - 1] as number);
      expect(top.reduce((s, l) => s + Math.exp(l), 0)).toBeLessThanOrEqual(1 + 1e-6);
      expect(reply.logprobs[t]).toBeLessThanOrEqual((top[0] as number) + 1e-6);
      const rank = (reply.topIds[t] as number[]).indexOf(reply.tokenIds[t] as number);
      if (rank >= 0) expect(reply.logprobs[t]).toBeCloseTo(top[rank] as number, 5);
    });
    // T = 0.6 sharpens the sampling distribution, but the reported log-probs are of the raw one:
    // greedy decoding picks the top-1 every time, and its log-prob is < 0 unless the model is certain.
    const greedy = await engine.generate(request({ sampling: { temperature: 0, topP: 1, topK: 0, maxTokens: 64 } }));
    greedy.tokenIds.forEach((id, t) => {
      if (!greedy.forced[t]) expect(greedy.topIds[t]?.[0]).toBe(id);
    });
  });

  it('forces the calculator result after every <|eq|> the model writes', async () => {
    const tok = engine.model.tokenizer;
    let checked = 0;
    for (const seed of [1, 2, 3]) {
      const reply = await engine.generate(request({ seed }));
      reply.tokenIds.forEach((id, t) => {
        if (id !== tok.eqId || reply.forced[t]) return;
        const before = tok.decode(reply.tokenIds.slice(0, t));
        const completion = calculatorCompletion(before);
        const expected = completion === null ? [] : tok.encode(completion);
        const forcedAfter: number[] = [];
        for (let j = t + 1; j < reply.tokenIds.length && reply.forced[j]; j += 1) forcedAfter.push(reply.tokenIds[j] as number);
        expect(forcedAfter).toEqual(expected.slice(0, reply.tokenIds.length - t - 1));
        checked += 1;
      });
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('batches concurrent requests without changing their replies', async () => {
    const prompts = [question, 'What is 12 plus 30?', `${question} Please be quick.`, 'Hi'];
    const alone: GenerateResult[] = [];
    for (const p of prompts) alone.push(await engine.generate(request({ seed: 11 }, p)));
    const together = await Promise.all(prompts.map((p) => engine.generate(request({ seed: 11 }, p))));
    together.forEach((reply, i) => {
      const solo = alone[i] as GenerateResult;
      // Padding may change the last float bits; a token flips only on a near-tie, so compare the common prefix.
      const n = Math.min(reply.tokenIds.length, solo.tokenIds.length);
      let same = 0;
      while (same < n && reply.tokenIds[same] === solo.tokenIds[same]) same += 1;
      expect(same).toBeGreaterThanOrEqual(Math.min(n, 20));
      expect(maxAbsDiff(reply.logprobs.slice(0, same), solo.logprobs.slice(0, same))).toBeLessThan(1e-3);
    });
  });

  it('stops at maxTokens, streams exactly the final reply, and refuses a prompt that does not fit', async () => {
    const short = await engine.generate(request({ sampling: { temperature: 0.6, topP: 0.95, topK: 20, maxTokens: 5 } }));
    expect(short.finishReason).toBe('length');
    expect(short.completionTokens).toBe(5);

    const chunks: Array<{ tokenIds: number[]; text: string; forced: boolean[] }> = [];
    const streamed = await engine.generate(request({ seed: 5, stream: true }), (c) => chunks.push(c));
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.flatMap((c) => c.tokenIds)).toEqual(streamed.tokenIds);
    expect(chunks.map((c) => c.text).join('')).toBe(streamed.text);
    expect(chunks.flatMap((c) => c.forced)).toEqual(streamed.forced);
    if (streamed.finishReason === 'stop') expect(streamed.tokenIds.at(-1)).toBe(engine.model.tokenizer.endId);

    const tooLong = 'seven '.repeat(engine.info.maxPositions);
    await expect(engine.generate(request({}, tooLong))).rejects.toMatchObject({ code: 'context_length_exceeded' });
  });

  it('appends a hint to the last user message, as the OPD teacher needs', async () => {
    const hint = 'Write it like a student would, in plain sentences.';
    const hinted = await engine.generate(request({ seed: 9, hint }));
    const manual = await engine.generate(request({ seed: 9 }, `${question}\n\n${hint}`));
    expect(hinted.tokenIds).toEqual(manual.tokenIds);
  });

  it('serves an adapter: B = 0 is the base, a real one changes the policy, score can ask for the base', async () => {
    const plain = await engine.generate(request({ seed: 21 }));
    const zero = adapterBlob(1, () => 0);
    expect(await engine.setAdapter(zero)).toBe(zero.version);
    const sameAsBase = await engine.generate(request({ seed: 21 }));
    expect(sameAsBase.version).toBe(zero.version);
    expect(sameAsBase.tokenIds).toEqual(plain.tokenIds);

    const noisy = adapterBlob(2, (rng) => (rng.next() - 0.5) * 0.5);
    await engine.setAdapter(noisy);
    const adapted = await engine.score({ messages: request().messages, responseTokenIds: plain.tokenIds, logprobsTopK: 4, adapter: 'loaded' });
    const asBase = await engine.score({ messages: request().messages, responseTokenIds: plain.tokenIds, logprobsTopK: 4, adapter: 'base' });
    expect(adapted.version).toBe(noisy.version);
    expect(asBase.version).toBe('base');
    // Compare whole top-K rows: a confident token's own log-prob can stay near 0 under any adapter.
    expect(maxAbsDiff(adapted.topLogprobs.flat(), asBase.topLogprobs.flat())).toBeGreaterThan(1e-2);
    expect(maxAbsDiff(asBase.logprobs, plain.logprobs)).toBeLessThan(2e-3);

    await expect(engine.setAdapter({ ...noisy, sha256: '0'.repeat(64) })).rejects.toMatchObject({ code: 'adapter_hash_mismatch' });
    expect(engine.version).toBe(noisy.version);
  });

  it('finishes in-flight requests on the version they started with when the adapter swaps', async () => {
    await engine.setAdapter(null);
    const next = adapterBlob(3, () => 0);
    const longRequest = request({ seed: 2, sampling: { temperature: 1, topP: 1, topK: 0, maxTokens: 300 } });
    const before = engine.generate(longRequest);
    const queued = engine.generate(request({ seed: 3 }));
    await engine.setAdapter(next);
    const after = engine.generate(request({ seed: 4 }));
    const [a, q, b] = await Promise.all([before, queued, after]);
    expect(a.version).toBe('base');
    expect(q.version).toBe('base');
    expect(b.version).toBe(next.version);
    await engine.setAdapter(null);
  });
});
