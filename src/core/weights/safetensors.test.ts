import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { floatToBfloat16, floatToHalf, parseSafetensors, readSafetensors, serializeSafetensors, toFloat32, toFloat64, writeSafetensors } from './safetensors';

function build(header: object, data: Uint8Array): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'safetensors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('safetensors', () => {
  it('reads a hand-made file byte for byte (format per the spec)', () => {
    const data = new Uint8Array(new Float32Array([1, -2.5, 3, 4]).buffer);
    const half = new Uint8Array([0x00, 0x3c, 0x00, 0xc0]); // F16 1.0, -2.0
    const file = build(
      {
        __metadata__: { format: 'pt' },
        b: { dtype: 'F16', shape: [2], data_offsets: [16, 20] },
        a: { dtype: 'F32', shape: [2, 2], data_offsets: [0, 16] },
      },
      new Uint8Array([...data, ...half]),
    );
    const parsed = parseSafetensors(file);
    expect(parsed.metadata).toEqual({ format: 'pt' });
    expect([...toFloat32('a', parsed.tensors.get('a')!).data]).toEqual([1, -2.5, 3, 4]);
    expect([...toFloat32('b', parsed.tensors.get('b')!).data]).toEqual([1, -2]);
  });

  it('round-trips deterministically, header 8-byte aligned', async () => {
    const tensors = {
      'z.weight': { shape: [3], data: new Float32Array([1, 2, 3]) },
      'a.weight': { shape: [1, 2], data: new Float32Array([Number.NaN, -0]) },
    };
    const bytes = serializeSafetensors(tensors, { step: '3' });
    const headerLength = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    expect(headerLength % 8).toBe(0);
    expect(serializeSafetensors({ 'a.weight': tensors['a.weight'], 'z.weight': tensors['z.weight'] }, { step: '3' })).toEqual(bytes);
    const path = join(dir, 'x.safetensors');
    await writeSafetensors(path, tensors, { step: '3' });
    const back = await readSafetensors(path);
    expect(back.metadata).toEqual({ step: '3' });
    expect(back.tensors.get('z.weight')!.shape).toEqual([3]);
    const a = toFloat32('a.weight', back.tensors.get('a.weight')!).data;
    expect(Number.isNaN(a[0])).toBe(true);
    expect(Object.is(a[1], -0)).toBe(true);
  });

  it('rejects corrupt files with a reason', () => {
    const ok = serializeSafetensors({ w: { shape: [2], data: new Float32Array([1, 2]) } });
    expect(() => parseSafetensors(ok.subarray(0, 5))).toThrow(/shorter/);
    expect(() => parseSafetensors(ok.subarray(0, ok.length - 1))).toThrow(/past the data section/);
    const huge = ok.slice();
    new DataView(huge.buffer).setBigUint64(0, 10n ** 12n, true);
    expect(() => parseSafetensors(huge)).toThrow(/header length/);
    const data = new Uint8Array(8);
    expect(() => parseSafetensors(build({ w: { dtype: 'F32', shape: [3], data_offsets: [0, 8] } }, data))).toThrow(/do not hold/);
    expect(() => parseSafetensors(build({ w: { dtype: 'Q4', shape: [2], data_offsets: [0, 8] } }, data))).toThrow(/dtype/);
    expect(() =>
      parseSafetensors(build({ a: { dtype: 'F32', shape: [2], data_offsets: [0, 8] }, b: { dtype: 'F32', shape: [1], data_offsets: [4, 8] } }, data)),
    ).toThrow(/overlap or gap/);
    expect(() => parseSafetensors(build({ w: { dtype: 'F32', shape: [1], data_offsets: [0, 4] } }, data))).toThrow(/cover/);
    const notJson = build({}, new Uint8Array());
    notJson[8] = 0xff;
    expect(() => parseSafetensors(notJson)).toThrow(/JSON/);
  });

  it('refuses to write inconsistent tensors', () => {
    expect(() => serializeSafetensors({ w: { shape: [3], data: new Float32Array(2) } })).toThrow(/holds 3/);
  });
});

describe('writing the narrower float types', () => {
  it('round-trips F16 and BF16 to the nearest representable value, NaN and ±Inf included', () => {
    const values = Float32Array.from([0, -0, 1, -2.5, 0.1, 65504, 1e-7, 3.14159, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]);
    for (const dtype of ['F16', 'BF16'] as const) {
      const file = parseSafetensors(serializeSafetensors({ t: { shape: [values.length], data: values, dtype } }));
      expect(file.tensors.get('t')?.dtype).toBe(dtype);
      const back = toFloat32('t', file.tensors.get('t')!).data;
      const relative = dtype === 'F16' ? 2 ** -11 : 2 ** -8;
      values.forEach((v, i) => {
        const b = back[i] as number;
        if (Number.isNaN(v)) expect(Number.isNaN(b)).toBe(true);
        else if (!Number.isFinite(v)) expect(b).toBe(v);
        else if (dtype === 'F16' && Math.abs(v) < 2 ** -14)
          expect(Math.abs(b - v)).toBeLessThanOrEqual(2 ** -25); // subnormal: half a step of 2^-24
        else expect(Math.abs(b - v)).toBeLessThanOrEqual(relative * Math.abs(v));
      });
    }
    expect(floatToHalf(1)).toBe(0x3c00);
    expect(floatToHalf(65520)).toBe(0x7c00); // rounds up past the largest half: infinity
    expect(floatToBfloat16(1)).toBe(0x3f80);
    expect(floatToBfloat16(1 + 2 ** -8)).toBe(0x3f80); // a tie rounds to even
  });

  it('writes float64 exactly (the trainer checkpoint) and reads it back as float64', () => {
    const data = Float64Array.from([Math.PI, 1e-300, -123456789.12345679]);
    const file = parseSafetensors(serializeSafetensors({ x: { shape: [3], data } }));
    expect(file.tensors.get('x')?.dtype).toBe('F64');
    expect(toFloat64('x', file.tensors.get('x')!)).toEqual(data);
  });
});
