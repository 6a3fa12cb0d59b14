/** Shared argument parsing for the run commands (node:util parseArgs, strict, no positionals). */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import path from 'node:path';
import { UsageError } from './cliCommand';

export function parseOptions<O extends NonNullable<ParseArgsConfig['options']>>(args: readonly string[], options: O) {
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** The --run DIR every command but `run` takes. */
export function requireRunDir(value: string | boolean | undefined): string {
  if (typeof value !== 'string' || value === '') throw new UsageError('--run DIR is required');
  return path.resolve(value);
}

export function integerOption(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min) throw new UsageError(`--${name} must be an integer ≥ ${min}, got ${JSON.stringify(value)}`);
  return Number(value);
}
