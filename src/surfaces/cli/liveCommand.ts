/**
 * `gatelab live` and `gatelab exclude`. Live mode serves outside clients
 * (OpenClaw pointed at the printed base URL) and learns from their
 * conversations behind the release gate; Ctrl-C journals the open sessions,
 * lets the trainer finish its step and stops every process. While it runs,
 * `gatelab confirm|reject|rollback|status|exclude` reach it through its
 * control endpoint, as for a run.
 */
import path from 'node:path';
import { RecipeError } from '../../core/recipe/loadRecipe';
import { loadRunRecipe } from '../../run/recipeSchemas';
import { RunNotRunnableError } from '../../run/recipeBackends';
import { RunBusyError } from '../../run/runFolder';
import { excludeSessionOffline } from '../../run/live/excludeSession';
import { DEFAULT_IDLE_SECONDS, NotLiveRunError, openLiveMode, startLiveMode, type LiveMode } from '../../run/live/liveMode';
import { askLiveRun, startControlServer } from '../control/controlServer';
import { lifecycleLogLine } from '../../processes/lifecycleLogLine';
import { workerRegistry } from '../../processes/workerRegistry';
import { CliFailure, UsageError, type CliCommand } from './cliCommand';
import { integerOption, parseOptions, requireRunDir } from './cliArgs';

const liveUsage = `Usage: gatelab live (--recipe FILE [--out DIR] [--confirm auto|manual] [--max-model-len N] | --run DIR) [--idle-seconds N]

  --recipe FILE        the recipe: its serving engine, probe engine, trainer, judge and gate (its tasks are not run)
  --out DIR            the run folder to create (default: runs/<recipe>-live-<time>)
  --run DIR            continue a live-mode run that was stopped
  --confirm MODE       override the gate's confirmation: manual (a person) or auto
  --max-model-len N    serve N tokens of context (prompt and reply) instead of the recipe's policy.max_model_len,
                       at most the model's own; OpenClaw needs 8192 on SmolLM2 (its prompt is ~2,000 tokens)
  --idle-seconds N     journal a conversation after N quiet seconds (default ${DEFAULT_IDLE_SECONDS})

Point the client's base URL at the printed address, with the printed token as its API key.`;

const excludeUsage = `Usage: gatelab exclude --run DIR --session N [--reason TEXT]

  --run DIR        the run (live or a stopped one)
  --session N      the journaled session (its number in gatelab status and the journal)
  --reason TEXT    why (kept in the journal; default: "excluded by its user")`;

export const liveCommand: CliCommand = {
  summary: 'serve outside clients through the gateway and learn from their conversations, behind the gate',
  usage: liveUsage,
  run: async (args) => {
    const o = parseOptions(args, {
      recipe: { type: 'string' },
      run: { type: 'string' },
      out: { type: 'string' },
      confirm: { type: 'string' },
      'idle-seconds': { type: 'string' },
      'max-model-len': { type: 'string' },
    });
    if ((o.recipe === undefined) === (o.run === undefined)) throw new UsageError('give exactly one of --recipe FILE or --run DIR');
    if (o.run !== undefined && (o.out !== undefined || o.confirm !== undefined || o['max-model-len'] !== undefined)) {
      throw new UsageError('--out, --confirm and --max-model-len are for a new run (--recipe)');
    }
    const maxModelLen = integerOption('max-model-len', o['max-model-len'], 1);
    if (o.confirm !== undefined && o.confirm !== 'auto' && o.confirm !== 'manual') throw new UsageError('--confirm must be auto or manual');
    const idleSeconds = integerOption('idle-seconds', o['idle-seconds'], 1) ?? DEFAULT_IDLE_SECONDS;
    const log = (line: string) => process.stderr.write(`${line}\n`);
    let failure: ((error: Error) => void) | undefined;
    const failed = new Promise<Error>((resolve) => (failure = resolve));
    let live: LiveMode;
    try {
      const common = { idleSeconds, onLog: log, onFatal: (error: Error) => failure?.(error) };
      if (o.run !== undefined) {
        live = await openLiveMode(requireRunDir(o.run), common);
      } else {
        const { recipe } = await loadRunRecipe(o.recipe!);
        const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
        const out = o.out ?? path.join('runs', `${recipe.name}-live-${stamp}`);
        live = await startLiveMode(o.recipe!, out, {
          overrides: {
            ...(o.confirm === 'auto' || o.confirm === 'manual' ? { confirm: o.confirm } : {}),
            ...(maxModelLen !== undefined ? { maxModelLen } : {}),
          },
          ...common,
        });
      }
    } catch (error) {
      if (error instanceof RecipeError || error instanceof RunNotRunnableError || error instanceof RunBusyError || error instanceof NotLiveRunError)
        throw new CliFailure(error.message);
      throw error;
    }
    const control = await startControlServer(live.run);
    const stopWorkerNews = workerRegistry.onLifecycle((event) => log(lifecycleLogLine(event).message));
    let stop: (() => void) | undefined;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const onSignal = () => stop?.();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      console.log(`run folder: ${live.run.runDir}`);
      console.log(`base URL:   ${live.endpoint.baseUrl}`);
      console.log(`API key:    ${live.endpoint.token}`);
      console.log(`model:      ${live.endpoint.model}`);
      console.log('serving; Ctrl-C stops (open conversations are journaled first)');
      const error = await Promise.race([stopped.then(() => undefined), failed]);
      if (error) throw new CliFailure(`live mode stopped: ${error.message}`);
      log('\nstopping: journaling the open conversations, finishing the trainer step');
      return 0;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      stopWorkerNews();
      await control.close();
      await live.close();
    }
  },
};

export const excludeCommand: CliCommand = {
  summary: 'exclude a session from training (its turns never reach the trainer; the candidates already trained on it are named)',
  usage: excludeUsage,
  run: async (args) => {
    const o = parseOptions(args, { run: { type: 'string' }, session: { type: 'string' }, reason: { type: 'string' } });
    const runDir = requireRunDir(o.run);
    const session = integerOption('session', o.session, 0);
    if (session === undefined) throw new UsageError('--session N is required');
    const reason = o.reason ?? 'excluded by its user';
    let result: { session: number; trainedIn: string[] };
    try {
      const live = await askLiveRun(runDir, { action: 'exclude', session, reason });
      result = live ? (live.result as typeof result) : await excludeSessionOffline(runDir, session, reason);
    } catch (error) {
      throw new CliFailure((error as Error).message);
    }
    console.log(`session ${result.session} excluded from training`);
    if (result.trainedIn.length > 0) {
      console.log(
        `already trained on it: ${result.trainedIn.join(', ')} — reject a candidate still in the gate (gatelab reject), or roll back one that serves`,
      );
    }
    return 0;
  },
};
