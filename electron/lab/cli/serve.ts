/**
 * `gatelab serve`: the gateway alone, on the embedded base model or on a
 * run's serving version, until SIGINT/SIGTERM.
 *
 *   gatelab serve [--run DIR] [--port N] [--model-dir DIR]
 *
 * The key is GATELAB_TOKEN, else a random per-launch token (printed).
 * With --run, the version is the one DIR/serving.json names and its blob
 * must hash to the pointer's sha256; anything else refuses to start.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { readServingPointer } from '../journal/servingPointer';
import { BASE_VERSION, verifyAdapterBlob } from '../serving/adapterBlob';
import { startEmbeddedEngine } from '../serving/engineClient';
import type { AdapterRef } from '../serving/engineClient';
import { DEFAULT_MODEL_ID, startGateway } from '../serving/gatewayServer';
import { loadPolicyTokenizer } from '../serving/policyTokenizer';
import { ServingState } from '../serving/servingState';
import { CliFailure, UsageError, type CliCommand } from './cliCommand';

const usage = `Usage: gatelab serve [--run DIR] [--port N] [--model-dir DIR]

  --run DIR        serve the version DIR/serving.json names (its blob is hash-checked)
  --port N         port on 127.0.0.1 (default: a free one)
  --model-dir DIR  the embedded policy (default: assets/models/policy)

Environment:
  GATELAB_TOKEN    the API key clients send as 'Authorization: Bearer …'
                   (at least 16 characters; default: a random token, printed)`;

export const serveCommand: CliCommand = {
  summary: 'serve the OpenAI-compatible gateway on the base model or a run’s serving version',
  usage,
  run: serve,
};

type ServeOptions = { runDir: string | null; port: number; modelDir: string };

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
  return { runDir: run === undefined ? null : resolve(run), port, modelDir: resolve(modelDir ?? defaultModelDir()) };
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
  const adapter: AdapterRef = { ...pointer, path: join(runDir, 'weights', 'blobs', `${pointer.sha256}.safetensors`) };
  try {
    await verifyAdapterBlob(adapter);
  } catch (error) {
    throw new CliFailure(`refusing to serve: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { ...pointer, adapter };
}

async function serve(args: readonly string[]): Promise<number> {
  const options = parseServeArgs(args);
  const { token, generated } = tokenFromEnvironment();
  const wanted = options.runDir ? await servingOfRun(options.runDir) : null;
  if (!existsSync(join(options.modelDir, 'manifest.json'))) {
    throw new CliFailure(`no embedded policy at ${options.modelDir} (missing manifest.json); pass --model-dir`);
  }

  const engine = await startEmbeddedEngine({ modelDir: options.modelDir });
  try {
    if (wanted?.version === BASE_VERSION && wanted.sha256 !== engine.info.baseSha256) {
      throw new CliFailure(`refusing to serve: ${options.runDir} serves base ${wanted.sha256}, but ${options.modelDir} is ${engine.info.baseSha256}`);
    }
    const loaded = await engine.client.setAdapter(wanted?.adapter ?? null);
    const serving = new ServingState(engine.client, { version: loaded, sha256: wanted?.sha256 ?? engine.info.baseSha256 }, engine.info.baseSha256);
    const tokenizer = await loadPolicyTokenizer(options.modelDir);
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
