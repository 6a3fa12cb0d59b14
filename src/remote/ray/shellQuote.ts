/**
 * Ray's job API takes the entrypoint as one shell command line and runs it
 * through a shell — the one place GateLab has to hand a shell a command. Each
 * argument is single-quoted (POSIX: nothing inside single quotes is
 * special; a single quote itself becomes '\''), so the shell sees exactly
 * the argument array we meant. Only fixed arguments go this way: the
 * driver's source travels in the environment, and each role's command as JSON
 * over the job's link (see rayJob.ts).
 */
export function shellQuote(argument: string): string {
  if (argument.includes('\0')) throw new Error('an argument cannot contain a NUL byte');
  return `'${argument.replaceAll("'", `'\\''`)}'`;
}

export function shellCommandLine(argv: readonly string[]): string {
  if (argv.length === 0) throw new Error('an empty command');
  return argv.map(shellQuote).join(' ');
}
