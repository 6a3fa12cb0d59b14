import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PolicyShape } from '../../../core/weights/policyConfig';
import { serializeSafetensors, type Float32Tensor } from '../../../core/weights/safetensors';
import { WorkerError } from '../../../processes/serveWorker';
import { baseAdapter, loadAdapter } from './loraAdapter';

const shape: PolicyShape = {
  vocabSize: 10,
  hiddenSize: 4,
  intermediateSize: 6,
  numLayers: 2,
  numHeads: 2,
  numKvHeads: 2,
  headDim: 2,
  maxPositions: 32,
  tiedEmbeddings: true,
};
const dir = mkdtempSync(join(tmpdir(), 'lora-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function peft(layer: number, module: string, part: 'A' | 'B'): string {
  const group = ['gate', 'up', 'down'].includes(module) ? 'mlp' : 'self_attn';
  return `base_model.model.model.layers.${layer}.${group}.${module}_proj.lora_${part}.weight`;
}

function blob(tensors: Record<string, Float32Tensor>, metadata: Record<string, string> = { lora_alpha: '8', r: '2' }) {
  const bytes = serializeSafetensors(tensors, metadata);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const path = join(dir, `${sha256}.safetensors`);
  writeFileSync(path, bytes);
  return { version: `v1-${sha256.slice(0, 8)}`, path, sha256 };
}

const qOnly = {
  [peft(1, 'q', 'A')]: { shape: [2, 4], data: Float32Array.from({ length: 8 }, (_, i) => i) },
  [peft(1, 'q', 'B')]: { shape: [4, 2], data: Float32Array.from({ length: 8 }, (_, i) => -i) },
};

async function rejection(promise: Promise<unknown>): Promise<WorkerError> {
  const error = await promise.then(
    () => new Error('resolved'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkerError);
  return error as WorkerError;
}

describe('LoRA adapters as graph inputs', () => {
  it('gives the base as rank-1 zeros for every module', () => {
    const base = baseAdapter(shape);
    expect(base.version).toBe('base');
    expect(base.feeds['lora.0.down.A']!.dims).toEqual([1, 6]);
    expect(base.feeds['lora.1.up.B']!.dims).toEqual([6, 1]);
    expect([...(base.feeds['lora.1.up.B']!.data as Float32Array)].every((v) => v === 0)).toBe(true);
    expect(Object.keys(base.feeds)).toHaveLength(2 * 7 * 2 + 1);
  });

  it('maps PEFT names to lora.{i}.{m}.A/B, fills untargeted modules with zeros, scale = alpha / r', async () => {
    const adapter = await loadAdapter(shape, blob(qOnly));
    expect(adapter.rank).toBe(2);
    expect(adapter.scale).toBe(4);
    expect([...(adapter.feeds['lora.1.q.A']!.data as Float32Array)]).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(adapter.feeds['lora.1.q.B']!.dims).toEqual([4, 2]);
    expect(adapter.feeds['lora.0.gate.B']!.dims).toEqual([6, 2]);
    expect([...(adapter.feeds['lora.0.gate.B']!.data as Float32Array)].every((v) => v === 0)).toBe(true);
    expect((adapter.feeds.lora_scale!.data as Float32Array)[0]).toBe(4);
  });

  it('re-checks the sha256 before using a byte', async () => {
    const ref = blob(qOnly);
    const error = await rejection(loadAdapter(shape, { ...ref, sha256: 'f'.repeat(64) }));
    expect(error.code).toBe('adapter_hash_mismatch');
  });

  it('rejects wrong shapes, unknown names, mixed ranks, NaN, a half pair and a missing alpha', async () => {
    const cases: Array<[Record<string, Float32Tensor>, Record<string, string> | undefined, RegExp]> = [
      [{ ...qOnly, [peft(1, 'q', 'A')]: { shape: [2, 5], data: new Float32Array(10) } }, undefined, /expected \[r, 4\]/],
      [{ ...qOnly, 'model.layers.0.mlp.up_proj.weight': { shape: [1], data: new Float32Array(1) } }, undefined, /unexpected tensor/],
      [
        { ...qOnly, [peft(0, 'k', 'A')]: { shape: [3, 4], data: new Float32Array(12) }, [peft(0, 'k', 'B')]: { shape: [4, 3], data: new Float32Array(12) } },
        undefined,
        /rank 3/,
      ],
      [{ ...qOnly, [peft(1, 'q', 'B')]: { shape: [4, 2], data: new Float32Array(8).fill(Number.NaN) } }, undefined, /non-finite/],
      [{ [peft(1, 'q', 'A')]: qOnly[peft(1, 'q', 'A')]! }, undefined, /without lora_B/],
      [{ [peft(7, 'q', 'A')]: qOnly[peft(1, 'q', 'A')]! }, undefined, /layer 7/],
      [qOnly, {}, /lora_alpha/],
    ];
    for (const [tensors, metadata, message] of cases) {
      const error = await rejection(loadAdapter(shape, blob(tensors, metadata)));
      expect(error.code).toBe('bad_adapter');
      expect(error.message).toMatch(message);
    }
    const corrupt = blob(qOnly);
    writeFileSync(corrupt.path, 'garbage');
    const fixedHash = createHash('sha256').update('garbage').digest('hex');
    expect((await rejection(loadAdapter(shape, { ...corrupt, sha256: fixedHash }))).code).toBe('bad_adapter');
  });

  it('takes alpha from the request when the blob has none, and refuses a disagreement', async () => {
    expect((await loadAdapter(shape, { ...blob(qOnly, {}), loraAlpha: 2 })).scale).toBe(1);
    const error = await rejection(loadAdapter(shape, { ...blob(qOnly), loraAlpha: 16 }));
    expect(error.message).toMatch(/disagrees/);
  });
});
