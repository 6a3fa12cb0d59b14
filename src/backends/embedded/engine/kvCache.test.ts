import { describe, expect, it } from 'vitest';
import type { CacheLayout } from './cacheLayout';
import { KvBatch } from './kvCache';
import { ort } from './ortSession';

const dims = { layers: 2, heads: 2, headDim: 3 };
const layouts: CacheLayout[] = [{ kind: 'stacked' }, { kind: 'perLayer', layers: dims.layers }];

/** Value of a cached entry: tag (row) · 1000 + layer · 100 + head · 10 + column + d / 10. */
function entry(tag: number, l: number, h: number, p: number, d: number): number {
  return tag * 1000 + l * 100 + h * 10 + p + d / 10;
}

/** What a B = 1 run of `length` tokens returns as its present cache, in either layout. */
function rowOutput(layout: CacheLayout, tag: number, length: number): ort.InferenceSession.ReturnType {
  const layer = (l: number) => {
    const data = new Float32Array(dims.heads * length * dims.headDim);
    let i = 0;
    for (let h = 0; h < dims.heads; h += 1) for (let p = 0; p < length; p += 1) for (let d = 0; d < dims.headDim; d += 1) data[i++] = entry(tag, l, h, p, d);
    return data;
  };
  if (layout.kind === 'perLayer') {
    const out: Record<string, ort.Tensor> = {};
    for (let l = 0; l < dims.layers; l += 1) {
      const shape = [1, dims.heads, length, dims.headDim];
      out[`present_key.${l}`] = new ort.Tensor('float32', layer(l), shape);
      out[`present_value.${l}`] = new ort.Tensor(
        'float32',
        layer(l).map((v) => -v),
        shape,
      );
    }
    return out;
  }
  const all = new Float32Array(dims.layers * dims.heads * length * dims.headDim);
  for (let l = 0; l < dims.layers; l += 1) all.set(layer(l), l * dims.heads * length * dims.headDim);
  const shape = [dims.layers, 1, dims.heads, length, dims.headDim];
  return {
    present_key: new ort.Tensor('float32', all, shape),
    present_value: new ort.Tensor(
      'float32',
      all.map((v) => -v),
      shape,
    ),
  };
}

/** Reads key (or value) [l, b, h, p, d] back from the batch's graph inputs. */
function at(kv: KvBatch, l: number, b: number, h: number, p: number, d: number, which: 'key' | 'value' = 'key'): number {
  const feeds = kv.feeds();
  const P = kv.length;
  if (kv.layout.kind === 'perLayer') {
    const t = feeds[`past_${which}.${l}`] as ort.Tensor;
    return (t.data as Float32Array)[((b * dims.heads + h) * P + p) * dims.headDim + d] as number;
  }
  const t = feeds[`past_${which}`] as ort.Tensor;
  return (t.data as Float32Array)[(((l * kv.rows + b) * dims.heads + h) * P + p) * dims.headDim + d] as number;
}

describe.each(layouts)('KvBatch ($kind cache)', (layout) => {
  it('left-pads rows of different lengths with zeros and masks the padding', () => {
    const kv = KvBatch.empty(dims, layout)
      .withRow(rowOutput(layout, 1, 2))
      .withRow(rowOutput(layout, 2, 4));
    expect(kv.rows).toBe(2);
    expect(kv.length).toBe(4);
    expect(kv.pads).toEqual([2, 0]);
    expect(at(kv, 1, 0, 1, 0, 0)).toBe(0);
    expect(at(kv, 1, 0, 1, 2, 1)).toBeCloseTo(entry(1, 1, 1, 0, 1), 4);
    expect(at(kv, 0, 1, 0, 3, 2)).toBeCloseTo(entry(2, 0, 0, 3, 2), 4);
    expect(at(kv, 1, 1, 1, 3, 2, 'value')).toBeCloseTo(-entry(2, 1, 1, 3, 2), 4);
    expect([...(kv.attentionMask(1).data as BigInt64Array)]).toEqual([0n, 0n, 1n, 1n, 1n, 1n, 1n, 1n, 1n, 1n]);
    expect(Object.keys(kv.feeds()).sort()).toEqual(
      layout.kind === 'stacked' ? ['past_key', 'past_value'] : ['past_key.0', 'past_key.1', 'past_value.0', 'past_value.1'],
    );
  });

  it('drops finished rows and the columns only they needed', () => {
    const kv = KvBatch.empty(dims, layout)
      .withRow(rowOutput(layout, 1, 2))
      .withRow(rowOutput(layout, 2, 5))
      .withRow(rowOutput(layout, 3, 3));
    expect(kv.pads).toEqual([3, 0, 2]);
    const kept = kv.keepRows([0, 2]);
    expect(kept.rows).toBe(2);
    expect(kept.length).toBe(3);
    expect(kept.pads).toEqual([1, 0]);
    expect(at(kept, 1, 0, 0, 1, 0)).toBeCloseTo(entry(1, 1, 0, 0, 0), 4);
    expect(at(kept, 1, 1, 1, 2, 2)).toBeCloseTo(entry(3, 1, 1, 2, 2), 4);
    expect(kv.keepRows([]).rows).toBe(0);
  });

  it('accepts a step output only of the expected shape', () => {
    const kv = KvBatch.empty(dims, layout).withRow(rowOutput(layout, 1, 2));
    expect(kv.advance(rowOutput(layout, 1, 3)).length).toBe(3);
    expect(() => kv.advance(rowOutput(layout, 1, 2))).toThrow(/present cache/);
  });
});
