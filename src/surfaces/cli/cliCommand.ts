/** One `gatelab <command>`: what it does, how to call it, and its body (returns the exit code). */
export type CliCommand = {
  readonly summary: string;
  readonly usage: string;
  run(args: readonly string[]): Promise<number>;
};

/** A wrong invocation: main prints the message and the command's usage, exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A failure a person can act on (missing file, bad hash): main prints it without a stack, exits 1. */
export class CliFailure extends Error {
  override readonly name = 'CliFailure';
}
