// zod schemas for one CSV cell: text in, typed value out, with a message that
// says what was expected (the CSV reader adds the line and the column).

import { z } from 'zod';

/** A non-negative integer written in decimal digits. */
export const countCell = z
  .string()
  .regex(/^\d+$/u, 'expected a non-negative integer')
  .transform(Number)
  .pipe(z.number().int().max(Number.MAX_SAFE_INTEGER, 'integer too large'));

/** A flag: exactly "0" or "1". */
export const bitCell = z
  .string()
  .regex(/^[01]$/u, 'expected 0 or 1')
  .transform((text) => (text === '1' ? 1 : 0) as 0 | 1);

/** A decimal or scientific number (as Python writes floats) within [0, 1]. */
export const rateCell = z
  .string()
  .regex(/^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/u, 'expected a number between 0 and 1')
  .transform(Number)
  .pipe(z.number().min(0, 'expected a number between 0 and 1').max(1, 'expected a number between 0 and 1'));

/**
 * A rate that may be missing: an empty cell means "not measured" (GateLab's
 * gate.csv leaves the probe rates of a candidate rejected before any probe
 * round empty). Anything else must be a rate.
 */
export const optionalRateCell = z.union([z.literal('').transform(() => null), rateCell]);

/**
 * The precision a number was written with: half a unit of its last decimal
 * place ("0.833" → 0.0005). Shortest round-trip reprs give a tolerance far
 * below any difference that matters.
 */
export function writtenPrecision(text: string): number {
  const m = /^[+-]?\d*(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/u.exec(text.trim());
  if (!m) return 0;
  const decimals = m[1]?.length ?? 0;
  const exp = m[2] === undefined ? 0 : Number(m[2]);
  return 0.5 * 10 ** (exp - decimals);
}
