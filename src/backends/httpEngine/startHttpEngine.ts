/**
 * The policy backend of an HTTP engine (vLLM, SGLang), and starting one
 * engine role's server the same way for every engine: the base model's identity and vocabulary, a private work
 * folder (staged adapters, the zero adapter base traffic runs on, the model
 * view), a free loopback port and a per-launch token, one SupervisedServer
 * (argument array, the role's placement and nice value, `/health`, the
 * workers panel's log, restart with backoff, the adapters reloaded after
 * every restart) and the engine's client on top — on this host, or on a Ray
 * node when the placement names a server host (RemoteServerHost: the
 * runner launches the server there and reaches it from a loopback port here,
 * adapter folders are uploaded by content). The engine says only its
 * command line and its client (HttpEngineSpec).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { workerDescriptor } from '../../processes/devices/rolePlacement';
import { EngineError, type EngineInfo } from '../../core/protocols/engineProtocol';
import type { StartedEngine } from '../../processes/rpcEngineClient';
import { hfModelSha256 } from '../../core/weights/hfModelSha256';
import { policyShape, readPolicyConfig, type PolicyShape } from '../../core/weights/policyConfig';
import { freeLoopbackPort, SupervisedServer } from '../../processes/supervisedServer';
import { SERVER_PORT_PLACEHOLDER } from '../../processes/serverProcess';
import { EngineTokenizer } from '../../core/protocols/engineTokenizer';
import type { EngineStart, PolicyBackend } from '../policyBackend';
import { hfVocabulary } from './hfVocabulary';
import { writeZeroAdapter } from './loraFolders';
import { hasGgufQuantizationNote, servedModelView } from './modelView';
import type { RuntimeLoraEngineClient, RuntimeLoraEngineOptions } from './runtimeLoraEngineClient';

/** What the engine's command line is made of (one launch: the port and token are fixed for the engine's life). */
export type HttpEngineLaunch = {
  /** A number on this host; for a server on another node, the placeholder its Ray actor replaces (SERVER_PORT_PLACEHOLDER). */
  port: number | string;
  apiKey: string;
  /** The engine's private folder (removed when the client closes). */
  workDir: string;
  /** The model folder the server is given (servedModelView). */
  servedModelDir: string;
  /** The served context, prompt and reply together. */
  maxModelLen: number;
  /** The server reads the model folder itself on another node, whose config names a GGUF quantization to ignore (modelView.ts). */
  dropQuantizationNote: boolean;
};

export type HttpEngineSpec = {
  /** In errors and folder names: `vLLM`, `SGLang`. */
  engineName: string;
  python: string;
  /** The served context for the model's shape (engines and hosts differ). */
  maxModelLen: (shape: PolicyShape) => number;
  /** The argument array and environment of the server; may write files under `launch.workDir`. */
  command: (launch: HttpEngineLaunch) => Promise<{ args: string[]; env: Record<string, string> }>;
  client: (options: RuntimeLoraEngineOptions) => RuntimeLoraEngineClient;
  /** How long one start (load, /health, the adapters' reload) may take. */
  startTimeoutMs: number;
};

/** The backend of a policy served by HTTP engines on `modelDir`; `specFor` may refuse a role (it throws). */
export function httpEngineBackend(modelDir: string, specFor: (start: EngineStart) => HttpEngineSpec): PolicyBackend {
  return {
    modelDir,
    baseSha256: () => hfModelSha256(modelDir),
    startEngine: async (start) => startHttpEngine(modelDir, specFor(start), start),
    gatewayTokenizer: (engine) => new EngineTokenizer(engine.client),
  };
}

export async function startHttpEngine(modelDir: string, spec: HttpEngineSpec, { role, placement, onLog, onStateChange }: EngineStart): Promise<StartedEngine> {
  const shape = policyShape(await readPolicyConfig(path.join(modelDir, 'config.json')));
  const maxModelLen = spec.maxModelLen(shape);
  const [baseSha256, vocabulary] = await Promise.all([hfModelSha256(modelDir), hfVocabulary(modelDir, shape.vocabSize)]);
  const workDir = await mkdtemp(path.join(tmpdir(), `gatelab-${spec.engineName.toLowerCase()}-${role}-`));
  const zeroAdapterDir = await writeZeroAdapter(modelDir, path.join(workDir, 'base-zero'));
  // A role on a Ray node: its server runs there, reached through a loopback port of this host (the tunnel).
  const host = placement.serverHost?.();
  // A view made here is no use on another node: there the server reads the model folder itself, told to drop the GGUF note.
  const servedModelDir = host ? modelDir : await servedModelView(modelDir, workDir);
  const port = host ? await host.port() : await freeLoopbackPort();
  const apiKey = randomBytes(24).toString('hex');
  const { args, env } = await spec.command({
    port: host ? SERVER_PORT_PLACEHOLDER : port,
    apiKey,
    workDir,
    servedModelDir,
    maxModelLen,
    dropQuantizationNote: host !== undefined && (await hasGgufQuantizationNote(modelDir)),
  });
  const info: EngineInfo = { baseSha256, vocabSize: shape.vocabSize, maxPositions: maxModelLen, vocabulary };
  let client: RuntimeLoraEngineClient | undefined;
  const server = new SupervisedServer({
    name: `${role}-engine`,
    command: spec.python,
    args: () => args,
    env,
    nice: placement.nice,
    ...(host ? { launch: host.launch } : {}),
    healthUrl: `http://127.0.0.1:${port}/health`,
    startTimeoutMs: spec.startTimeoutMs,
    setup: () => (client ? client.restoreAdapters() : Promise.resolve()),
    describe: workerDescriptor(role, placement),
    ...(onLog ? { onLog } : {}),
    ...(onStateChange ? { onStateChange } : {}),
  });
  client = spec.client({
    server,
    endpoint: { baseUrl: `http://127.0.0.1:${port}`, apiKey },
    info,
    workDir,
    modelDir,
    zeroAdapterDir,
    ...(host ? { serverPath: (dir: string) => host.placeFolder(dir), afterClose: () => host.close() } : {}),
  });
  try {
    await server.start();
  } catch (error) {
    // Stops what is left of the server, closes a remote one's tunnel and removes the work folder.
    await client.close();
    throw new EngineError('start_failed', `the ${role} ${spec.engineName} server did not start: ${(error as Error).message}`);
  }
  const started = client;
  return { client: started, info: started.info, pid: () => server.pid };
}
