import { z } from 'zod';

/**
 * Every failure a LabApi call can report, on both transports. A switch over
 * `LabErrorCode` must be exhaustive, so adding a code shows every place that
 * has to handle it.
 */
export const LAB_ERROR_CODES = [
  'invalid-params', // the call's params failed the method's schema
  'invalid-csv', // a run file is malformed; details name file, line and column
  'not-found', // unknown channel, unknown reference id
  'forbidden', // untrusted sender (IPC) or bad token / host / origin (HTTP)
  'too-large', // request body over the limit
  'conflict', // not allowed in the current state: a run is already live, the candidate is not awaiting confirmation, …
  'unavailable', // cannot be done on this machine: the recipe cannot run here (details: the reasons), or is invalid
  'internal', // a bug: the handler threw or returned a result its schema rejects
] as const;

export type LabErrorCode = (typeof LAB_ERROR_CODES)[number];

/** Where in a CSV file a problem is: 1-based line, and column when the problem is in one cell. */
export const CsvLocation = z.strictObject({
  file: z.string(),
  line: z.number().int().positive(),
  column: z.number().int().positive().nullable(),
  columnName: z.string().nullable(),
  problem: z.string(),
});
export type CsvLocation = z.infer<typeof CsvLocation>;

export const LabErrorShape = z.strictObject({
  code: z.enum(LAB_ERROR_CODES),
  message: z.string(),
  /** Machine-readable detail: a CsvLocation for invalid-csv, zod issues for invalid-params. */
  details: z.unknown().optional(),
});
export type LabErrorShape = z.infer<typeof LabErrorShape>;

/**
 * What every method call returns over the wire. Handlers never throw across a
 * transport: an Error does not survive IPC's structured clone or contextBridge
 * with its code intact, so failures travel as data and the client rethrows.
 */
export const LabEnvelope = z.union([
  z.strictObject({ ok: z.literal(true), result: z.unknown() }),
  z.strictObject({ ok: z.literal(false), error: LabErrorShape }),
]);
export type LabEnvelope = z.infer<typeof LabEnvelope>;

/** The error a LabApi call rejects with, on either transport. */
export class LabError extends Error {
  readonly code: LabErrorCode;
  readonly details: unknown;

  constructor(code: LabErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = 'LabError';
    this.code = code;
    this.details = details;
  }

  toShape(): LabErrorShape {
    return this.details === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, details: this.details };
  }
}

export function isCsvLocation(value: unknown): value is CsvLocation {
  return CsvLocation.safeParse(value).success;
}
