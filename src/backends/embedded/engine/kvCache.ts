/**
 * The key/value cache of a decode batch: the cache blocks of cacheLayout.ts
 * (one stacked [L,B,H,P,Dh] block, or one [B,H,P,Dh] block per layer) plus,
 * per row, how many leading columns are padding.
 *
 * Every row is prefilled on its own (B = 1, no padding) and then joins the
 * batch left-padded with zeros to the batch's length; rows leave when they
 * finish and columns that are padding for every remaining row are dropped.
 * So a padded position is never a *query* — only a masked key whose cached
 * values are zeros — whatever the graph does with fully masked rows.
 */
import { blockGeometry, emptyBlocks, pastFeeds, presentBlocks, type CacheDims, type CacheLayout, type KvBlock } from './cacheLayout';
import { ort } from './ortSession';

export type KvDims = CacheDims;

const zeroTensor = (shape: number[]): ort.Tensor => new ort.Tensor('float32', new Float32Array(0), shape);

/** Where one destination row's columns come from. */
interface RowSource {
  readonly blocks: readonly KvBlock[];
  /** Row index within the source blocks. */
  readonly row: number;
  /** First source column copied. */
  readonly from: number;
  /** First destination column written. */
  readonly to: number;
  /** Leading padding columns of the destination row. */
  readonly pad: number;
}

export class KvBatch {
  private constructor(
    readonly dims: KvDims,
    readonly layout: CacheLayout,
    readonly blocks: readonly KvBlock[],
    /** Leading padding columns of each row. */
    readonly pads: readonly number[],
  ) {}

  static empty(dims: KvDims, layout: CacheLayout): KvBatch {
    return new KvBatch(dims, layout, emptyBlocks(layout, dims, 0, zeroTensor), []);
  }

  /** The `past` inputs of a single-sequence prefill (P = 0). */
  static emptyRowFeeds(dims: KvDims, layout: CacheLayout): Record<string, ort.Tensor> {
    return pastFeeds(layout, emptyBlocks(layout, dims, 1, zeroTensor));
  }

  get rows(): number {
    return this.pads.length;
  }

  /** P: the number of cached columns. */
  get length(): number {
    const first = this.blocks[0];
    return first ? blockGeometry(first.key).length : 0;
  }

  /** The graph's `past_*` inputs. */
  feeds(): Record<string, ort.Tensor> {
    return pastFeeds(this.layout, this.blocks);
  }

  /** `attention_mask` [B, P + steps]: padding 0, everything else (and the new tokens) 1. */
  attentionMask(steps: number): ort.Tensor {
    const width = this.length + steps;
    const mask = new BigInt64Array(this.rows * width).fill(1n);
    this.pads.forEach((pad, b) => mask.fill(0n, b * width, b * width + pad));
    return new ort.Tensor('int64', mask, [this.rows, width]);
  }

  /** After a step: the graph's `present_*` is the new cache, one column longer for every row. */
  advance(output: ort.InferenceSession.ReturnType): KvBatch {
    const blocks = presentBlocks(this.layout, output);
    const expected = this.length + 1;
    for (const block of blocks) {
      const g = blockGeometry(block.key);
      if (g.rows !== this.rows || g.length !== expected) {
        throw new Error(`the present cache has shape ${JSON.stringify(block.key.dims)}, expected B=${this.rows}, P=${expected}`);
      }
    }
    return new KvBatch(this.dims, this.layout, blocks, this.pads);
  }

  /** Adds a prefilled row (the `present_*` of a B = 1 run); it becomes row `this.rows`. */
  withRow(output: ort.InferenceSession.ReturnType): KvBatch {
    const rowBlocks = presentBlocks(this.layout, output);
    const rowLength = blockGeometry((rowBlocks[0] as KvBlock).key).length;
    const length = Math.max(this.length, rowLength);
    const growth = length - this.length;
    const sources: RowSource[] = [
      ...this.pads.map((pad, b) => ({ blocks: this.blocks, row: b, from: 0, to: growth, pad: pad + growth })),
      { blocks: rowBlocks, row: 0, from: 0, to: length - rowLength, pad: length - rowLength },
    ];
    return this.rebuild(length, sources);
  }

  /**
   * Keeps only `keep` (row indices, in their new order) and drops columns
   * that are padding for all of them.
   */
  keepRows(keep: readonly number[]): KvBatch {
    if (keep.length === this.rows && keep.every((b, i) => b === i)) return this;
    const trim = keep.length === 0 ? this.length : Math.min(...keep.map((b) => this.pads[b] as number));
    const sources = keep.map((b) => ({ blocks: this.blocks, row: b, from: trim, to: 0, pad: (this.pads[b] as number) - trim }));
    return this.rebuild(this.length - trim, sources);
  }

  /**
   * Builds new blocks of `sources.length` rows and `length` columns: for
   * every destination row, source columns [from, P_source) go to destination
   * columns starting at `to`; everything else stays zero.
   */
  private rebuild(length: number, sources: readonly RowSource[]): KvBatch {
    const rows = sources.length;
    const template = this.blocks.length > 0 ? this.blocks : emptyBlocks(this.layout, this.dims, 0, zeroTensor);
    const blocks = template.map((block, blockIndex) => {
      const { layers, heads, headDim } = blockGeometry(block.key);
      const shape = block.key.dims.length === 5 ? [layers, rows, heads, length, headDim] : [rows, heads, length, headDim];
      const key = new Float32Array(layers * rows * heads * length * headDim);
      const value = new Float32Array(key.length);
      sources.forEach((source, b) => {
        const src = source.blocks[blockIndex] as KvBlock;
        const g = blockGeometry(src.key);
        const srcKey = src.key.data as Float32Array;
        const srcValue = src.value.data as Float32Array;
        const span = (g.length - source.from) * headDim;
        for (let l = 0; l < layers; l += 1) {
          for (let h = 0; h < heads; h += 1) {
            const from = (((l * g.rows + source.row) * heads + h) * g.length + source.from) * headDim;
            const to = (((l * rows + b) * heads + h) * length + source.to) * headDim;
            key.set(srcKey.subarray(from, from + span), to);
            value.set(srcValue.subarray(from, from + span), to);
          }
        }
      });
      return { key: new ort.Tensor('float32', key, shape), value: new ort.Tensor('float32', value, shape) };
    });
    return new KvBatch(
      this.dims,
      this.layout,
      blocks,
      sources.map((s) => s.pad),
    );
  }
}
