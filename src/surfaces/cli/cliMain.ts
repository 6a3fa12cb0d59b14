/**
 * `gatelab <command> [options]` — the headless entry (bundled as
 * dist/lab/cli.js; bin/gatelab.js runs it, or this source through tsx).
 * Each command lives in its own file and is registered in `commands`.
 */
import { CliFailure, UsageError, type CliCommand } from './cliCommand';
import { serveCommand } from './serve';
import { runCommand, resumeCommand } from './runCommand';
import { statusCommand } from './statusCommand';
import { confirmCommand, injectCommand, rejectCommand, rollbackCommand } from './gateCommands';
import { exportCommand } from './exportCommand';
import { excludeCommand, liveCommand } from './liveCommand';

const commands = {
  run: runCommand,
  resume: resumeCommand,
  status: statusCommand,
  inject: injectCommand,
  confirm: confirmCommand,
  reject: rejectCommand,
  rollback: rollbackCommand,
  live: liveCommand,
  exclude: excludeCommand,
  export: exportCommand,
  serve: serveCommand,
} as const satisfies Record<string, CliCommand>;

type CommandName = keyof typeof commands;
const isCommandName = (name: string): name is CommandName => Object.hasOwn(commands, name);

function overview(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  const lines = Object.entries(commands).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`);
  return ['Usage: gatelab <command> [options]', '', 'Commands:', ...lines, '', "Run 'gatelab <command> --help' for a command's options."].join('\n');
}

async function main(argv: readonly string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(overview());
    return name === undefined ? 2 : 0;
  }
  if (!isCommandName(name)) {
    console.error(`gatelab: unknown command '${name}'\n\n${overview()}`);
    return 2;
  }
  const command = commands[name];
  if (args.includes('--help') || args.includes('-h')) {
    console.log(`${command.summary}\n\n${command.usage}`);
    return 0;
  }
  try {
    return await command.run(args);
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`gatelab ${name}: ${error.message}\n\n${command.usage}`);
      return 2;
    }
    if (error instanceof CliFailure) {
      console.error(`gatelab ${name}: ${error.message}`);
      return 1;
    }
    console.error(`gatelab ${name}: unexpected error:`, error);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
