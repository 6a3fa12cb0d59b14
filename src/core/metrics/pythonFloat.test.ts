import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { formatPythonFloat } from './pythonFloat';

const vectors = z
  .object({ about: z.string(), reprs: z.array(z.string()).min(100) })
  .parse(JSON.parse(readFileSync(new URL('./pythonFloatVectors.json', import.meta.url), 'utf8')));

describe('formatPythonFloat', () => {
  it('writes what Python repr() wrote for every recorded value', () => {
    const wrong = vectors.reprs.filter((repr) => formatPythonFloat(Number(repr)) !== repr);
    expect(wrong).toEqual([]);
  });

  it.each([
    [0, '0.0'],
    [1, '1.0'],
    [-0, '-0.0'],
    [5 / 6, '0.8333333333333334'],
    [0.1, '0.1'],
    [1e-4, '0.0001'],
    [1e-5, '1e-05'],
    [1e16, '1e+16'],
    [123456789012345.6, '123456789012345.6'],
    [Number.NaN, 'nan'],
    [Number.NEGATIVE_INFINITY, '-inf'],
  ])('%s -> %s', (x, text) => {
    expect(formatPythonFloat(x)).toBe(text);
  });
});
