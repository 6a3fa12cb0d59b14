/**
 * A small safetensors reader/writer.
 *
 * Written by hand on purpose: the format is tiny (an 8-byte little-endian
 * header length, a JSON header, then raw little-endian tensor bytes) and
 * there is no maintained safetensors package on npm for Node — the official
 * implementation is Rust/Python only. Reading is strict because candidate
 * blobs are untrusted input to the gate: every offset, size and dtype is
 * checked before a byte is interpreted.
 *
 * Spec: https://github.com/huggingface/safetensors#format
 */
import { readFile, open } from 'node:fs/promises';
import { endianness } from 'node:os';

const LITTLE_ENDIAN_HOST = endianness() === 'LE';

export type SafetensorsDtype = 'F32' | 'F16' | 'BF16' | 'F64' | 'I64' | 'I32' | 'I16' | 'I8' | 'U8' | 'BOOL';

const DTYPE_BYTES = {
  F64: 8,
  F32: 4,
  F16: 2,
  BF16: 2,
  I64: 8,
  I32: 4,
  I16: 2,
  I8: 1,
  U8: 1,
  BOOL: 1,
} as const satisfies Record<SafetensorsDtype, number>;

/** A tensor as read from a file: shape, dtype and a private copy of its bytes. */
export interface RawTensor {
  readonly dtype: SafetensorsDtype;
  readonly shape: readonly number[];
  readonly bytes: Uint8Array;
}

/** A float32 tensor. */
export interface Float32Tensor {
  readonly shape: readonly number[];
  readonly data: Float32Array;
}

/** The float dtypes GateLab writes: adapters in F32, BF16 or F16, trainer checkpoints in F64. */
export type WritableDtype = 'F32' | 'BF16' | 'F16' | 'F64';

/** A tensor to write: float values and the dtype to store them in (default F64 for Float64Array data, F32 otherwise). */
export interface WritableTensor {
  readonly shape: readonly number[];
  readonly data: Float32Array | Float64Array;
  readonly dtype?: WritableDtype;
}

export interface SafetensorsFile {
  readonly tensors: ReadonlyMap<string, RawTensor>;
  readonly metadata: Readonly<Record<string, string>>;
}

export class SafetensorsError extends Error {
  override readonly name = 'SafetensorsError';
}

/** Headers larger than this are rejected (the reference implementation uses 100 MB). */
const MAX_HEADER_BYTES = 100_000_000;

function isDtype(value: unknown): value is SafetensorsDtype {
  return typeof value === 'string' && Object.hasOwn(DTYPE_BYTES, value);
}

function elementCount(shape: readonly number[]): number {
  return shape.reduce((product, dim) => product * dim, 1);
}

/** Parses a whole safetensors buffer; throws SafetensorsError on any inconsistency. */
export function parseSafetensors(buffer: Uint8Array): SafetensorsFile {
  if (buffer.byteLength < 8) throw new SafetensorsError(`file is ${buffer.byteLength} bytes, shorter than the 8-byte header length`);
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const headerLength = view.getBigUint64(0, true);
  if (headerLength > BigInt(Math.min(MAX_HEADER_BYTES, buffer.byteLength - 8))) {
    throw new SafetensorsError(`header length ${headerLength} exceeds the file (${buffer.byteLength} bytes) or the limit`);
  }
  const headerEnd = 8 + Number(headerLength);
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(buffer.subarray(8, headerEnd)));
  } catch (error) {
    throw new SafetensorsError(`header is not valid UTF-8 JSON: ${(error as Error).message}`);
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) {
    throw new SafetensorsError('header is not a JSON object');
  }
  const dataLength = buffer.byteLength - headerEnd;
  const tensors = new Map<string, RawTensor>();
  let metadata: Record<string, string> = {};
  const ranges: Array<{ name: string; begin: number; end: number }> = [];
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') {
      metadata = parseMetadata(entry);
      continue;
    }
    const { dtype, shape, data_offsets: offsets } = (entry ?? {}) as Record<string, unknown>;
    if (!isDtype(dtype)) throw new SafetensorsError(`tensor ${name}: unsupported dtype ${JSON.stringify(dtype)}`);
    if (!Array.isArray(shape) || !shape.every((d): d is number => Number.isSafeInteger(d) && d >= 0)) {
      throw new SafetensorsError(`tensor ${name}: shape must be an array of non-negative integers`);
    }
    if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((o): o is number => Number.isSafeInteger(o) && o >= 0)) {
      throw new SafetensorsError(`tensor ${name}: data_offsets must be two non-negative integers`);
    }
    const [begin, end] = offsets as [number, number];
    const expectedBytes = elementCount(shape) * DTYPE_BYTES[dtype];
    if (end < begin || end - begin !== expectedBytes) {
      throw new SafetensorsError(`tensor ${name}: data_offsets [${begin}, ${end}] do not hold ${expectedBytes} bytes of ${dtype}${JSON.stringify(shape)}`);
    }
    if (end > dataLength) throw new SafetensorsError(`tensor ${name}: data ends at ${end}, past the data section (${dataLength} bytes)`);
    ranges.push({ name, begin, end });
    tensors.set(name, {
      dtype,
      shape: [...shape],
      // A copy into a fresh, aligned ArrayBuffer (Buffer#slice would be a view).
      bytes: new Uint8Array(buffer.subarray(headerEnd + begin, headerEnd + end)),
    });
  }
  // The spec requires the data section to be fully covered without overlaps.
  ranges.sort((a, b) => a.begin - b.begin || a.end - b.end);
  let cursor = 0;
  for (const range of ranges) {
    if (range.begin !== cursor) {
      throw new SafetensorsError(`tensor ${range.name}: data starts at ${range.begin}, expected ${cursor} (overlap or gap)`);
    }
    cursor = range.end;
  }
  if (cursor !== dataLength) throw new SafetensorsError(`data section is ${dataLength} bytes but tensors cover ${cursor}`);
  return { tensors, metadata };
}

function parseMetadata(entry: unknown): Record<string, string> {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new SafetensorsError('__metadata__ must be an object of strings');
  }
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(entry)) {
    if (typeof value !== 'string') throw new SafetensorsError(`__metadata__.${key} must be a string`);
    out[key] = value;
  }
  return out;
}

/** Reads and parses a safetensors file. */
export async function readSafetensors(path: string): Promise<SafetensorsFile> {
  const buffer = await readFile(path);
  try {
    return parseSafetensors(buffer);
  } catch (error) {
    if (error instanceof SafetensorsError) throw new SafetensorsError(`${path}: ${error.message}`);
    throw error;
  }
}

/** A raw tensor as float32 (F32 as is; F16/BF16/F64 converted). */
export function toFloat32(name: string, tensor: RawTensor): Float32Tensor {
  const { bytes, shape, dtype } = tensor;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = elementCount(shape);
  const data = new Float32Array(n);
  switch (dtype) {
    case 'F32':
      if (LITTLE_ENDIAN_HOST && bytes.byteOffset % 4 === 0) {
        data.set(new Float32Array(bytes.buffer, bytes.byteOffset, n));
      } else {
        for (let i = 0; i < n; i += 1) data[i] = view.getFloat32(i * 4, true);
      }
      break;
    case 'F64':
      for (let i = 0; i < n; i += 1) data[i] = view.getFloat64(i * 8, true);
      break;
    case 'F16':
      for (let i = 0; i < n; i += 1) data[i] = halfToFloat(view.getUint16(i * 2, true));
      break;
    case 'BF16': {
      const word = new DataView(new ArrayBuffer(4));
      for (let i = 0; i < n; i += 1) {
        word.setUint32(0, view.getUint16(i * 2, true) << 16, true);
        data[i] = word.getFloat32(0, true);
      }
      break;
    }
    case 'I64':
    case 'I32':
    case 'I16':
    case 'I8':
    case 'U8':
    case 'BOOL':
      throw new SafetensorsError(`tensor ${name}: dtype ${dtype} is not a float type`);
    default: {
      const unreachable: never = dtype;
      throw new SafetensorsError(`tensor ${name}: unknown dtype ${String(unreachable)}`);
    }
  }
  return { shape, data };
}

/** A raw tensor as float64 (F64 exactly; the narrower float types widened). */
export function toFloat64(name: string, tensor: RawTensor): Float64Array {
  if (tensor.dtype !== 'F64') return Float64Array.from(toFloat32(name, tensor).data);
  const view = new DataView(tensor.bytes.buffer, tensor.bytes.byteOffset, tensor.bytes.byteLength);
  const out = new Float64Array(elementCount(tensor.shape));
  for (let i = 0; i < out.length; i += 1) out[i] = view.getFloat64(i * 8, true);
  return out;
}

/** IEEE binary16 bits of a number, rounded to nearest even (NaN stays NaN, overflow becomes ±Inf). */
export function floatToHalf(value: number): number {
  const f32 = new Float32Array(1);
  const u32 = new Uint32Array(f32.buffer);
  f32[0] = value;
  const x = u32[0] as number;
  const sign = (x >>> 16) & 0x8000;
  const exponent = (x >>> 23) & 0xff;
  const mantissa = x & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa !== 0 ? 0x200 : 0);
  const e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    const m = mantissa | 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    let rounded = m >>> shift;
    const rest = m & ((1 << shift) - 1);
    if (rest > half || (rest === half && (rounded & 1) === 1)) rounded += 1;
    return sign | rounded;
  }
  let bits = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (bits & 1) === 1)) bits += 1; // may carry into the exponent: still right
  return sign | bits;
}

/** bfloat16 bits of a number: the float32's upper half, rounded to nearest even (NaN kept quiet). */
export function floatToBfloat16(value: number): number {
  const f32 = new Float32Array(1);
  const u32 = new Uint32Array(f32.buffer);
  f32[0] = value;
  const x = u32[0] as number;
  if (Number.isNaN(value)) return ((x >>> 16) & 0x8000) | 0x7fc0;
  const rounding = 0x7fff + ((x >>> 16) & 1);
  return ((x + rounding) >>> 16) & 0xffff;
}

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 0x1f) return fraction ? Number.NaN : sign * Infinity;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

/**
 * Serialises float tensors, each in its dtype (see WritableTensor). Tensors
 * are written in name order (as the reference implementation does) so the
 * same content gives the same bytes — and therefore the same sha256 in the
 * content-addressed weight store. The header is padded with spaces to a
 * multiple of 8 bytes.
 */
export function serializeSafetensors(
  tensors: ReadonlyMap<string, WritableTensor> | Readonly<Record<string, WritableTensor>>,
  metadata: Readonly<Record<string, string>> = {},
): Uint8Array {
  const entries = (tensors instanceof Map ? [...tensors.entries()] : Object.entries(tensors)) as Array<[string, WritableTensor]>;
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const header: Record<string, unknown> = {};
  if (Object.keys(metadata).length > 0) header.__metadata__ = { ...metadata };
  let offset = 0;
  const layout: Array<{ tensor: WritableTensor; dtype: WritableDtype }> = [];
  for (const [name, tensor] of entries) {
    if (name === '__metadata__') throw new SafetensorsError('"__metadata__" is not a valid tensor name');
    const n = elementCount(tensor.shape);
    if (n !== tensor.data.length) {
      throw new SafetensorsError(`tensor ${name}: shape ${JSON.stringify(tensor.shape)} holds ${n} values, data has ${tensor.data.length}`);
    }
    const dtype = tensor.dtype ?? (tensor.data instanceof Float64Array ? 'F64' : 'F32');
    const bytes = n * DTYPE_BYTES[dtype];
    header[name] = { dtype, shape: [...tensor.shape], data_offsets: [offset, offset + bytes] };
    layout.push({ tensor, dtype });
    offset += bytes;
  }
  let headerBytes = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil(headerBytes.length / 8) * 8;
  if (padded !== headerBytes.length) {
    const withPadding = new Uint8Array(padded).fill(0x20);
    withPadding.set(headerBytes);
    headerBytes = withPadding;
  }
  const out = new Uint8Array(8 + headerBytes.length + offset);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(headerBytes.length), true);
  out.set(headerBytes, 8);
  let cursor = 8 + headerBytes.length;
  for (const { tensor, dtype } of layout) {
    const { data } = tensor;
    if (LITTLE_ENDIAN_HOST && ((dtype === 'F32' && data instanceof Float32Array) || (dtype === 'F64' && data instanceof Float64Array))) {
      out.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), cursor);
      cursor += data.byteLength;
      continue;
    }
    for (let i = 0; i < data.length; i += 1) {
      const v = data[i] as number;
      switch (dtype) {
        case 'F32':
          view.setFloat32(cursor, v, true);
          break;
        case 'F64':
          view.setFloat64(cursor, v, true);
          break;
        case 'F16':
          view.setUint16(cursor, floatToHalf(v), true);
          break;
        case 'BF16':
          view.setUint16(cursor, floatToBfloat16(v), true);
          break;
        default: {
          const unreachable: never = dtype;
          throw new SafetensorsError(`unknown dtype ${String(unreachable)}`);
        }
      }
      cursor += DTYPE_BYTES[dtype];
    }
  }
  return out;
}

/** Writes float tensors to `path`, fsynced before returning. */
export async function writeSafetensors(
  path: string,
  tensors: ReadonlyMap<string, WritableTensor> | Readonly<Record<string, WritableTensor>>,
  metadata: Readonly<Record<string, string>> = {},
): Promise<void> {
  const bytes = serializeSafetensors(tensors, metadata);
  const handle = await open(path, 'w');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
