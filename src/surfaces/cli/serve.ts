/**
 * `gatelab serve`: the gateway alone, on the embedded base model or on a
 * run's serving version, until SIGINT/SIGTERM.
 *
 *   gatelab serve [--run DIR] [--port N] [--model-dir DIR]
 *
 * The key is GATELAB_TOKEN, else a random per-launch token (printed).
 * With --run, the version is the one DIR/serving.json names and its blob
 * must hash to the pointer's sha256; anything else refuses to start. The
 * engine comes from the composition root (src/run/composeRun.ts):
 * the run's recipe's policy on its serving device, or the embedded policy of
 * --model-dir.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { BackendUnavailableError } from '../../backends/backendUnavailable';
import { composeServing } from '../../run/composeRun';
import { readJournal } from '../../core/journal/appendOnlyJournal';
import { journalEventSchema } from '../../core/journal/journalEvents';
import { journalFile } from '../../core/journal/runJournal';
import { readServingPointer } from '../../core/journal/servingPointer';
import type { AdapterRef } from '../../core/protocols/engineProtocol';
import { resolveRecipePath } from '../../core/recipe/loadRecipe';
import { policySectionSchema, recipeSchema, type Recipe } from '../../core/recipe/recipeSchema';
import { BASE_VERSION, verifyAdapterBlob } from '../../core/weights/adapterBlob';
import { DEFAULT_MODEL_ID, startGateway } from '../gateway/gatewayServer';
import { ServingState } from '../../run/servingState';
import { CliFailure, UsageError, type CliCommand } from './cliCommand';

const usage = `Usage: gatelab serve [--run DIR] [--port N] [--model-dir DIR]

  --run DIR        serve the version DIR/serving.json names (its blob is hash-checked)
  --port N         port on 127.0.0.1 (default: a free one)
  --model-dir DIR  the embedded policy (default: the run's recipe's policy with
                   --run, else assets/models/policy)

Environment:
  GATELAB_TOKEN    the API key clients send as 'Authorization: Bearer …'
                   (at least 16 characters; default: a random token, printed)`;

export const serveCommand: CliCommand = {
  summary: 'serve the OpenAI-compatible gateway on the base model or a run’s serving version',
  usage,
  run: serve,
};

type ServeOptions = { runDir: string | null; port: number; modelDir: string | null };

function parseServeArgs(args: readonly string[]): ServeOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: { run: { type: 'string' }, port: { type: 'string' }, 'model-dir': { type: 'string' } },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { run, port: portText, 'model-dir': modelDir } = parsed.values;
  let port = 0;
  if (portText !== undefined) {
    port = Number(portText);
    if (!/^\d+$/.test(portText) || port < 1 || port > 65535) throw new UsageError(`--port must be an integer in 1–65535, got ${JSON.stringify(portText)}`);
  }
  return { runDir: run === undefined ? null : resolve(run), port, modelDir: modelDir === undefined ? null : resolve(modelDir) };
}

/** assets/models/policy of the package this file belongs to (source or built). */
function defaultModelDir(): string {
  let dir = fileURLToPath(new URL('.', import.meta.url));
  for (let depth = 0; depth < 6; depth += 1) {
    const candidate = join(dir, 'assets', 'models', 'policy');
    if (existsSync(join(dir, 'package.json')) && existsSync(candidate)) return candidate;
    dir = resolve(dir, '..');
  }
  return resolve('assets', 'models', 'policy');
}

function tokenFromEnvironment(): { token: string; generated: boolean } {
  const fromEnv = process.env.GATELAB_TOKEN;
  if (fromEnv === undefined || fromEnv === '') return { token: randomBytes(24).toString('base64url'), generated: true };
  if (fromEnv.length < 16) throw new CliFailure('GATELAB_TOKEN must be at least 16 characters');
  return { token: fromEnv, generated: false };
}

type RunRecipe = { recipe: Recipe; recipeFile: string };

/**
 * The recipe a run started with (its journal's run-started event), read
 * without the run's lock; null for a folder with a serving pointer and no
 * journal (it is served on the embedded policy of --model-dir).
 */
async function recipeOfRun(runDir: string): Promise<RunRecipe | null> {
  if (!existsSync(journalFile(runDir))) return null;
  let first;
  try {
    first = (await readJournal(journalFile(runDir), journalEventSchema)).events[0];
  } catch (error) {
    throw new CliFailure(`${journalFile(runDir)} is unreadable: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (first?.type !== 'run-started') throw new CliFailure(`${journalFile(runDir)} does not start with run-started; is it a run folder?`);
  return { recipe: recipeSchema.parse(first.recipe), recipeFile: first.recipeFile };
}

/** The version a run serves, checked against its bytes; null adapter = the base model. */
async function servingOfRun(runDir: string): Promise<{ version: string; sha256: string; adapter: AdapterRef | null }> {
  let pointer;
  try {
    pointer = await readServingPointer(runDir);
  } catch (error) {
    throw new CliFailure(`${join(runDir, 'serving.json')} is unreadable: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!pointer) throw new CliFailure(`${runDir} has no serving.json; is it a run folder?`);
  if (pointer.version === BASE_VERSION) return { ...pointer, adapter: null };
  const adapter: AdapterRef = {
    ...pointer,
    path: join(runDir, 'weights', 'blobs', `${pointer.sha256}.safetensors`),
    // The alpha is the adapter's own (its metadata or this config), which the gate verified against the recipe.
    adapterConfigPath: join(runDir, 'weights', 'versions', pointer.version, 'adapter_config.json'),
  };
  try {
    await verifyAdapterBlob(adapter);
  } catch (error) {
    throw new CliFailure(`refusing to serve: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { ...pointer, adapter };
}

/** The serving engine's backend and placement: the run's policy, or the embedded policy of --model-dir. */
function servingParts(options: ServeOptions, run: RunRecipe | null) {
  const explicit = options.modelDir ?? (run ? null : defaultModelDir());
  if (explicit !== null && !existsSync(join(explicit, 'manifest.json'))) {
    throw new CliFailure(`no embedded policy at ${explicit} (missing manifest.json); pass --model-dir`);
  }
  const policy = explicit !== null ? policySectionSchema.parse({ kind: 'embedded', model_dir: explicit, sampling: { max_tokens: 256 } }) : run!.recipe.policy;
  try {
    return composeServing(policy, {
      resolvePath: (p) => (run && explicit === null ? resolveRecipePath({ dir: dirname(run.recipeFile) }, p) : p),
      device: run?.recipe.devices.serving ?? 'cpu',
    });
  } catch (error) {
    if (error instanceof BackendUnavailableError) throw new CliFailure(`cannot serve here: ${error.message}`);
    throw error;
  }
}

async function serve(args: readonly string[]): Promise<number> {
  const options = parseServeArgs(args);
  const { token, generated } = tokenFromEnvironment();
  const run = options.runDir ? await recipeOfRun(options.runDir) : null;
  const wanted = options.runDir ? await servingOfRun(options.runDir) : null;
  const { policy, placement } = servingParts(options, run);

  const engine = await policy.startEngine({ role: 'serving', placement });
  try {
    if (wanted?.version === BASE_VERSION && wanted.sha256 !== engine.info.baseSha256) {
      throw new CliFailure(`refusing to serve: ${options.runDir} serves base ${wanted.sha256}, but ${policy.modelDir} is ${engine.info.baseSha256}`);
    }
    const loaded = await engine.client.setAdapter(wanted?.adapter ?? null);
    const serving = new ServingState(engine.client, { version: loaded, sha256: wanted?.sha256 ?? engine.info.baseSha256 }, engine.info.baseSha256);
    const tokenizer = policy.gatewayTokenizer(engine);
    const gateway = await startGateway({ engine: engine.client, serving, tokenizer, token, port: options.port });

    console.log(`GateLab gateway serving ${loaded} at ${gateway.url}/v1`);
    console.log(`OpenAI base URL: ${gateway.url}/v1   model: ${DEFAULT_MODEL_ID}`);
    console.log(generated ? `API key (per launch): ${token}` : 'API key: from GATELAB_TOKEN');

    const signal = await new Promise<NodeJS.Signals>((resolveSignal) => {
      process.once('SIGINT', () => resolveSignal('SIGINT'));
      process.once('SIGTERM', () => resolveSignal('SIGTERM'));
    });
    console.log(`${signal}: stopping the gateway and the engine…`);
    await gateway.close();
  } finally {
    await engine.client.close();
  }
  console.log('stopped');
  return 0;
}
