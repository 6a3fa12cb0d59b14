/** `gatelab status --run DIR [--json]`: the serving pointer and every candidate, from the journal. */
import { readRunStatus } from '../../run/runStatus';
import { liveHolder } from '../../run/runFolder';
import { CliFailure, type CliCommand } from './cliCommand';
import { parseOptions, requireRunDir } from './cliArgs';

export const statusCommand: CliCommand = {
  summary: "a run's serving pointer, sessions and candidates (--json for machines)",
  usage: 'Usage: gatelab status --run DIR [--json]',
  run: async (args) => {
    const o = parseOptions(args, { run: { type: 'string' }, json: { type: 'boolean' } });
    const runDir = requireRunDir(o.run);
    const status = await readRunStatus(runDir).catch((e: Error) => {
      throw new CliFailure(e.message);
    });
    const holder = await liveHolder(runDir);
    if (o.json) {
      console.log(JSON.stringify({ ...status, live: holder !== undefined ? { pid: holder } : null }, null, 2));
      return 0;
    }
    console.log(
      `${status.runId} (${status.recipe}, confirm ${status.confirm}) — ${status.completed ? 'complete' : holder ? `running (pid ${holder})` : 'stopped'}`,
    );
    console.log(`serving: ${status.serving.version} ${status.serving.sha256}`);
    console.log(
      `sessions: ${status.sessions.completed}/${status.sessions.planned}, accepted ${status.sessions.accepted}; trainer steps ${status.trainerSteps}`,
    );
    for (const c of status.candidates) {
      const progress =
        c.state === 'probing'
          ? ` round ${c.round}`
          : c.rounds.length > 0
            ? ` (${c.rounds.filter((r) => r.passed).length}/${c.rounds.length} rounds passed)`
            : '';
      console.log(`  ${c.id.padEnd(4)} ${c.version.padEnd(14)} ${c.source.padEnd(24)} ${c.state}${progress}${c.reason ? ` — ${c.reason}` : ''}`);
    }
    return 0;
  },
};
