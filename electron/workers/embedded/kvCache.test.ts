import { describe, expect, it } from 'vitest';
import { KvBatch } from './kvCache';
import { ort } from './ortSession';

const dims = { layers: 2, heads: 2, headDim: 3 };

/** A [L,1,H,S,Dh] row whose every value encodes (layer, head, column, d) and a row tag. */
function row(tag: number, length: number): { key: ort.Tensor; value: ort.Tensor } {
  const data = new Float32Array(dims.layers * dims.heads * length * dims.headDim);
  let i = 0;
  for (let l = 0; l < dims.layers; l += 1)
    for (let h = 0; h < dims.heads; h += 1)
      for (let p = 0; p < length; p += 1) for (let d = 0; d < dims.headDim; d += 1) data[i++] = tag * 1000 + l * 100 + h * 10 + p + d / 10;
  const shape = [dims.layers, 1, dims.heads, length, dims.headDim];
  return { key: new ort.Tensor('float32', data, shape), value: new ort.Tensor('float32', data.map((v) => -v), shape) };
}

function at(kv: KvBatch, l: number, b: number, h: number, p: number, d: number): number {
  const P = kv.length;
  return (kv.key.data as Float32Array)[(((l * kv.rows + b) * dims.heads + h) * P + p) * dims.headDim + d] as number;
}

describe('KvBatch', () => {
  it('left-pads rows of different lengths with zeros and masks the padding', () => {
    const a = row(1, 2);
    const b = row(2, 4);
    const kv = KvBatch.empty(dims).withRow(a.key, a.value).withRow(b.key, b.value);
    expect(kv.rows).toBe(2);
    expect(kv.length).toBe(4);
    expect(kv.pads).toEqual([2, 0]);
    expect(at(kv, 1, 0, 1, 0, 0)).toBe(0);
    expect(at(kv, 1, 0, 1, 2, 1)).toBeCloseTo(1000 + 100 + 10 + 0 + 0.1, 4);
    expect(at(kv, 0, 1, 0, 3, 2)).toBeCloseTo(2000 + 3 + 0.2, 4);
    expect((kv.value.data as Float32Array)[0]).toBe(0);
    expect([...(kv.attentionMask(1).data as BigInt64Array)]).toEqual([0n, 0n, 1n, 1n, 1n, 1n, 1n, 1n, 1n, 1n]);
  });

  it('drops finished rows and the columns only they needed', () => {
    const a = row(1, 2);
    const b = row(2, 5);
    const c = row(3, 3);
    const kv = KvBatch.empty(dims).withRow(a.key, a.value).withRow(b.key, b.value).withRow(c.key, c.value);
    expect(kv.pads).toEqual([3, 0, 2]);
    const kept = kv.keepRows([0, 2]);
    expect(kept.rows).toBe(2);
    expect(kept.length).toBe(3);
    expect(kept.pads).toEqual([1, 0]);
    expect(at(kept, 1, 0, 0, 1, 0)).toBeCloseTo(1000 + 100, 4);
    expect(at(kept, 1, 1, 1, 2, 2)).toBeCloseTo(3000 + 100 + 10 + 2 + 0.2, 4);
    expect(kv.keepRows([]).rows).toBe(0);
  });

  it('accepts a step output only of the expected shape', () => {
    const a = row(1, 2);
    const kv = KvBatch.empty(dims).withRow(a.key, a.value);
    const longer = row(1, 3);
    expect(kv.advance(longer.key, longer.value).length).toBe(3);
    expect(() => kv.advance(a.key, a.value)).toThrow(/present_key/);
  });
});
