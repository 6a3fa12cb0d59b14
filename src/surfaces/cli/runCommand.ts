/**
 * `gatelab run` and `gatelab resume`: a run in the foreground, with progress,
 * until its sessions are done (SIGINT/SIGTERM stop it after the session in
 * progress; `gatelab resume` continues it). While it runs, the other
 * commands reach it through its control endpoint.
 */
import path from 'node:path';
import { RecipeError } from '../../core/recipe/loadRecipe';
import { loadRunRecipe } from '../../run/recipeSchemas';
import { startControlServer } from '../control/controlServer';
import { LiveRun } from '../../run/liveRun';
import { createRun, type RunOverrides } from '../../run/createRun';
import { RunNotRunnableError } from '../../run/recipeBackends';
import { RunBusyError } from '../../run/runFolder';
import { CliFailure, UsageError, type CliCommand } from './cliCommand';
import { integerOption, parseOptions, requireRunDir } from './cliArgs';
import { followRun } from './terminalProgress';
import { lifecycleLogLine } from '../../processes/lifecycleLogLine';
import { workerRegistry } from '../../processes/workerRegistry';

const runUsage = `Usage: gatelab run --recipe FILE [--seed N] [--confirm auto|manual] [--out DIR] [--sessions N] [--arm trained|control]

  --recipe FILE      the recipe (e.g. recipes/embedded-gsm8k-style.yaml)
  --seed N           override the recipe's seed
  --confirm MODE     override the gate's confirmation: manual (a person) or auto
  --out DIR          the run folder to create (default: runs/<recipe>-seed<N>-<time>)
  --sessions N       run only the first N sessions (shorter runs, benchmarks)
  --arm ARM          trained (default) or control: the same run with the policy frozen (the trainer never steps)`;

const resumeUsage = `Usage: gatelab resume --run DIR

  --run DIR          the run folder to continue (after a crash, a kill or a stop)`;

async function foreground(runDir: string): Promise<number> {
  let run: LiveRun;
  try {
    run = await LiveRun.open(runDir, { onLog: (line) => process.stderr.write(`${line}\n`) });
  } catch (error) {
    if (error instanceof RunBusyError) throw new CliFailure(error.message);
    throw error;
  }
  if (run.isLiveMode) {
    await run.close();
    throw new CliFailure(`${runDir} is a live-mode run: continue it with 'gatelab live --run ${runDir}'`);
  }
  const control = await startControlServer(run);
  const stopFollowing = followRun(run);
  // A worker's crash and restart are told here, as the desktop's lab log tells them.
  const stopWorkerNews = workerRegistry.onLifecycle((event) => process.stderr.write(`${lifecycleLogLine(event).message}\n`));
  const stop = () => {
    process.stderr.write('\nstopping after the session in progress; `gatelab resume` continues the run\n');
    run.requestStop();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const summary = await run.runSessions();
    stopFollowing();
    console.log(`\n${summary.completed ? 'run complete' : 'run stopped'}: ${runDir}`);
    console.log(
      `sessions ${summary.sessions.completed}/${summary.sessions.planned}, accepted ${summary.accepted}, sessions_to_adaptation ${summary.sessions_to_adaptation ?? 'not reached'}`,
    );
    console.log(`promotions ${summary.promotions.length}, rejections ${JSON.stringify(summary.rejections)}, serving ${summary.serving.version}`);
    if (summary.awaiting_confirm.length > 0)
      console.log(`awaiting confirmation: ${summary.awaiting_confirm.join(', ')} (gatelab confirm --run ${runDir} --candidate ID)`);
    return 0;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    stopWorkerNews();
    await control.close();
    await run.close();
  }
}

export const runCommand: CliCommand = {
  summary: 'start a run from a recipe: sessions, training, the release gate',
  usage: runUsage,
  run: async (args) => {
    const o = parseOptions(args, {
      recipe: { type: 'string' },
      seed: { type: 'string' },
      confirm: { type: 'string' },
      out: { type: 'string' },
      sessions: { type: 'string' },
      arm: { type: 'string' },
    });
    if (!o.recipe) throw new UsageError('--recipe FILE is required');
    if (o.confirm !== undefined && o.confirm !== 'auto' && o.confirm !== 'manual') throw new UsageError('--confirm must be auto or manual');
    if (o.arm !== undefined && o.arm !== 'trained' && o.arm !== 'control') throw new UsageError('--arm must be trained or control');
    const overrides: RunOverrides = {};
    const seed = integerOption('seed', o.seed, 0);
    const sessions = integerOption('sessions', o.sessions, 1);
    if (seed !== undefined) overrides.seed = seed;
    if (sessions !== undefined) overrides.sessions = sessions;
    if (o.confirm === 'auto' || o.confirm === 'manual') overrides.confirm = o.confirm;
    if (o.arm === 'trained' || o.arm === 'control') overrides.arm = o.arm;
    let runDir: string;
    try {
      // The registry's section schemas: a misspelt key of a backend's section is refused at its line.
      const { recipe } = await loadRunRecipe(o.recipe);
      const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
      const out = o.out ?? path.join('runs', `${recipe.name}${overrides.arm === 'control' ? '-control' : ''}-seed${seed ?? recipe.seed}-${stamp}`);
      runDir = await createRun(o.recipe, out, overrides);
    } catch (error) {
      if (error instanceof RecipeError || error instanceof RunNotRunnableError || error instanceof RunBusyError) throw new CliFailure(error.message);
      throw error;
    }
    console.log(`run folder: ${runDir}`);
    return foreground(runDir);
  },
};

export const resumeCommand: CliCommand = {
  summary: 'continue a run that was stopped, killed or crashed',
  usage: resumeUsage,
  run: async (args) => foreground(requireRunDir(parseOptions(args, { run: { type: 'string' } }).run)),
};
