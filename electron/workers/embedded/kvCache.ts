/**
 * The key/value cache of a decode batch: `past_key`/`past_value`
 * [L, B, H, P, Dh] plus, per row, how many leading columns are padding.
 *
 * Every row is prefilled on its own (B = 1, no padding) and then joins the
 * batch left-padded with zeros to the batch's length; rows leave when they
 * finish and columns that are padding for every remaining row are dropped.
 * So a padded position is never a *query* — only a masked key whose cached
 * values are zeros — whatever the graph does with fully masked rows.
 */
import { ort } from './ortSession';

export interface KvDims {
  readonly layers: number;
  readonly heads: number;
  readonly headDim: number;
}

export class KvBatch {
  private constructor(
    readonly dims: KvDims,
    readonly key: ort.Tensor,
    readonly value: ort.Tensor,
    /** Leading padding columns of each row. */
    readonly pads: readonly number[],
  ) {}

  static empty(dims: KvDims): KvBatch {
    const shape = [dims.layers, 0, dims.heads, 0, dims.headDim];
    return new KvBatch(dims, new ort.Tensor('float32', new Float32Array(0), shape), new ort.Tensor('float32', new Float32Array(0), shape), []);
  }

  /** An empty single-row cache, the `past` of a prefill. */
  static emptyRow(dims: KvDims): { key: ort.Tensor; value: ort.Tensor } {
    const shape = [dims.layers, 1, dims.heads, 0, dims.headDim];
    return { key: new ort.Tensor('float32', new Float32Array(0), shape), value: new ort.Tensor('float32', new Float32Array(0), shape) };
  }

  get rows(): number {
    return this.pads.length;
  }

  /** P: the number of cached columns. */
  get length(): number {
    return this.key.dims[3] as number;
  }

  /** `attention_mask` [B, P + steps]: padding 0, everything else (and the new tokens) 1. */
  attentionMask(steps: number): ort.Tensor {
    const width = this.length + steps;
    const mask = new BigInt64Array(this.rows * width).fill(1n);
    this.pads.forEach((pad, b) => mask.fill(0n, b * width, b * width + pad));
    return new ort.Tensor('int64', mask, [this.rows, width]);
  }

  /** After a step: the graph's `present_*` is the new cache, one column longer for every row. */
  advance(presentKey: ort.Tensor, presentValue: ort.Tensor): KvBatch {
    const expected = this.length + 1;
    if (presentKey.dims[1] !== this.rows || presentKey.dims[3] !== expected) {
      throw new Error(`present_key has shape ${JSON.stringify(presentKey.dims)}, expected B=${this.rows}, P=${expected}`);
    }
    return new KvBatch(this.dims, presentKey, presentValue, this.pads);
  }

  /** Adds a prefilled row ([L, 1, H, S, Dh]); it becomes row `this.rows`. */
  withRow(rowKey: ort.Tensor, rowValue: ort.Tensor): KvBatch {
    const rowLength = rowKey.dims[3] as number;
    const length = Math.max(this.length, rowLength);
    const rows = this.rows + 1;
    const sources = [
      ...this.pads.map((pad, b) => ({ key: this.key, value: this.value, row: b, rowsInSource: this.rows, from: 0, to: length - this.length, pad: pad + length - this.length })),
      { key: rowKey, value: rowValue, row: 0, rowsInSource: 1, from: 0, to: length - rowLength, pad: length - rowLength },
    ];
    return this.rebuild(rows, length, sources);
  }

  /**
   * Keeps only `keep` (row indices, in their new order) and drops columns
   * that are padding for all of them.
   */
  keepRows(keep: readonly number[]): KvBatch {
    if (keep.length === this.rows && keep.every((b, i) => b === i)) return this;
    const trim = keep.length === 0 ? this.length : Math.min(...keep.map((b) => this.pads[b] as number));
    const length = this.length - trim;
    const sources = keep.map((b) => ({ key: this.key, value: this.value, row: b, rowsInSource: this.rows, from: trim, to: 0, pad: (this.pads[b] as number) - trim }));
    return this.rebuild(keep.length, length, sources);
  }

  /**
   * Copies, for every destination row, source columns [from, P_source) to
   * destination columns starting at `to`; everything else stays zero.
   */
  private rebuild(
    rows: number,
    length: number,
    sources: ReadonlyArray<{ key: ort.Tensor; value: ort.Tensor; row: number; rowsInSource: number; from: number; to: number; pad: number }>,
  ): KvBatch {
    const { layers, heads, headDim } = this.dims;
    const shape = [layers, rows, heads, length, headDim];
    const key = new Float32Array(layers * rows * heads * length * headDim);
    const value = new Float32Array(key.length);
    sources.forEach((source, b) => {
      const sourceLength = source.key.dims[3] as number;
      const srcKey = source.key.data as Float32Array;
      const srcValue = source.value.data as Float32Array;
      const columns = sourceLength - source.from;
      for (let l = 0; l < layers; l += 1) {
        for (let h = 0; h < heads; h += 1) {
          const src = (((l * source.rowsInSource + source.row) * heads + h) * sourceLength + source.from) * headDim;
          const dst = (((l * rows + b) * heads + h) * length + source.to) * headDim;
          key.set(srcKey.subarray(src, src + columns * headDim), dst);
          value.set(srcValue.subarray(src, src + columns * headDim), dst);
        }
      }
    });
    return new KvBatch(
      this.dims,
      new ort.Tensor('float32', key, shape),
      new ort.Tensor('float32', value, shape),
      sources.map((s) => s.pad),
    );
  }
}
