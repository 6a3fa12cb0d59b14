/**
 * How decode.onnx takes and returns its key/value cache. Two layouts exist:
 * - `stacked` (the stage-1 export): `past_key`/`past_value` [L,B,H,P,Dh] in,
 *   `present_key`/`present_value` [L,B,H,P+S,Dh] out;
 * - `perLayer` (the final export): `past_key.{i}`/`past_value.{i}` [B,H,P,Dh]
 *   in, `present_key.{i}`/`present_value.{i}` [B,H,P+S,Dh] out — which saves
 *   the graph a split and a stack of the whole cache every step.
 * The layout is read from the session's input names, so every caller (the
 * engine, the trainer's forward-only pass, bench:engine's bare loop) works
 * with either file.
 */
import type { ort } from './ortSession';

export type CacheLayout = { readonly kind: 'stacked' } | { readonly kind: 'perLayer'; readonly layers: number };

/** One cache tensor pair: [layers, B, H, P, Dh] (stacked) or [B, H, P, Dh] (one layer). */
export interface KvBlock {
  readonly key: ort.Tensor;
  readonly value: ort.Tensor;
}

export interface CacheDims {
  readonly layers: number;
  readonly heads: number;
  readonly headDim: number;
}

export function detectCacheLayout(session: Pick<ort.InferenceSession, 'inputNames' | 'outputNames'>, layers: number): CacheLayout {
  const has = (names: readonly string[], name: string) => names.includes(name);
  if (has(session.inputNames, 'past_key') && has(session.inputNames, 'past_value')) {
    for (const out of ['present_key', 'present_value']) {
      if (!has(session.outputNames, out)) throw new Error(`decode.onnx has a stacked cache input but no ${out} output`);
    }
    return { kind: 'stacked' };
  }
  const missing: string[] = [];
  for (let i = 0; i < layers; i += 1) {
    for (const name of [`past_key.${i}`, `past_value.${i}`]) if (!has(session.inputNames, name)) missing.push(name);
    for (const name of [`present_key.${i}`, `present_value.${i}`]) if (!has(session.outputNames, name)) missing.push(name);
  }
  if (missing.length > 0) {
    throw new Error(`decode.onnx has neither past_key/past_value nor a full per-layer cache (missing ${missing.join(', ')})`);
  }
  return { kind: 'perLayer', layers };
}

/** The graph inputs for a cache held as blocks. */
export function pastFeeds(layout: CacheLayout, blocks: readonly KvBlock[]): Record<string, ort.Tensor> {
  switch (layout.kind) {
    case 'stacked': {
      const block = blocks[0];
      if (!block || blocks.length !== 1) throw new Error(`a stacked cache is one block, got ${blocks.length}`);
      return { past_key: block.key, past_value: block.value };
    }
    case 'perLayer': {
      if (blocks.length !== layout.layers) throw new Error(`a per-layer cache has ${layout.layers} blocks, got ${blocks.length}`);
      const feeds: Record<string, ort.Tensor> = {};
      blocks.forEach((block, i) => {
        feeds[`past_key.${i}`] = block.key;
        feeds[`past_value.${i}`] = block.value;
      });
      return feeds;
    }
    default: {
      const unreachable: never = layout;
      throw new Error(`unknown cache layout ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The cache a run returned, as blocks (to feed back as the next `past`). */
export function presentBlocks(layout: CacheLayout, output: ort.InferenceSession.ReturnType): KvBlock[] {
  const get = (name: string): ort.Tensor => {
    const tensor = output[name];
    if (!tensor) throw new Error(`decode.onnx returned no ${name}`);
    return tensor;
  };
  switch (layout.kind) {
    case 'stacked':
      return [{ key: get('present_key'), value: get('present_value') }];
    case 'perLayer':
      return Array.from({ length: layout.layers }, (_, i) => ({ key: get(`present_key.${i}`), value: get(`present_value.${i}`) }));
    default: {
      const unreachable: never = layout;
      throw new Error(`unknown cache layout ${JSON.stringify(unreachable)}`);
    }
  }
}

/** Zero-length cache blocks (P = 0) for `rows` sequences: the `past` of a prefill. */
export function emptyBlocks(layout: CacheLayout, dims: CacheDims, rows: number, make: (shape: number[]) => ort.Tensor): KvBlock[] {
  switch (layout.kind) {
    case 'stacked': {
      const shape = [dims.layers, rows, dims.heads, 0, dims.headDim];
      return [{ key: make(shape), value: make(shape) }];
    }
    case 'perLayer':
      return Array.from({ length: layout.layers }, () => ({
        key: make([rows, dims.heads, 0, dims.headDim]),
        value: make([rows, dims.heads, 0, dims.headDim]),
      }));
    default: {
      const unreachable: never = layout;
      throw new Error(`unknown cache layout ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The geometry of a block tensor, whichever layout: [layersInBlock, B, H, P, Dh]. */
export function blockGeometry(tensor: ort.Tensor): { layers: number; rows: number; heads: number; length: number; headDim: number } {
  const d = tensor.dims;
  if (d.length === 5) return { layers: d[0] as number, rows: d[1] as number, heads: d[2] as number, length: d[3] as number, headDim: d[4] as number };
  if (d.length === 4) return { layers: 1, rows: d[0] as number, heads: d[1] as number, length: d[2] as number, headDim: d[3] as number };
  throw new Error(`a cache tensor is 4-D or 5-D, got ${JSON.stringify(d)}`);
}
