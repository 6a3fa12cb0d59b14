/**
 * The embedded policy (docs/design.md, The embedded default): the 2 M-parameter model in
 * assets/models/policy, served by the onnxruntime engine worker
 * (src/backends/embedded/engine/engineWorker.ts, started by name through
 * `workerEntry('engine')` — the lab never imports it).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { Recipe } from '../../core/recipe/recipeSchema';
import { EngineTokenizer } from '../../core/protocols/engineTokenizer';
import { startRpcEngine, type StartedEngine } from '../../processes/rpcEngineClient';
import type { WorkerState } from '../../processes/supervisedWorker';
import type { WorkerDescriptor } from '../../processes/workerRegistry';
import { workerEntry } from '../../processes/workerEntry';
import type { WorkerLauncher } from '../../processes/workerProcess';
import { workerDescriptor } from '../../processes/devices/rolePlacement';
import { BackendUnavailableError } from '../backendUnavailable';
import type { PolicyBackend } from '../policyBackend';

export type EmbeddedEngineOptions = {
  modelDir: string;
  /** The supervisor's name for the process (default `engine`). */
  name?: string;
  /** Extra environment for the worker (the role's CUDA_VISIBLE_DEVICES, GATELAB_ORT_THREADS, …). */
  env?: Readonly<Record<string, string>>;
  /** The worker's nice value; 0 = normal priority. */
  nice?: number;
  /** The role and GPUs the workers panel lists it under. */
  describe?: WorkerDescriptor;
  /** Starts the process elsewhere (a Ray job: the placement's runner). */
  launch?: WorkerLauncher;
  onLog?: (line: string, stream: 'stdout' | 'stderr') => void;
  onStateChange?: (state: WorkerState, detail?: string) => void;
};

/** Starts the embedded engine worker on a model folder; resolves once the model is loaded. */
export function startEmbeddedEngine(options: EmbeddedEngineOptions): Promise<StartedEngine> {
  return startRpcEngine({
    name: options.name ?? 'engine',
    entry: () => workerEntry('engine'),
    modelDir: options.modelDir,
    ...(options.env ? { env: options.env } : {}),
    ...(options.nice ? { nice: options.nice } : {}),
    ...(options.describe ? { describe: options.describe } : {}),
    ...(options.launch ? { launch: options.launch } : {}),
    ...(options.onLog ? { onLog: options.onLog } : {}),
    ...(options.onStateChange ? { onStateChange: options.onStateChange } : {}),
  });
}

const modelManifestSchema = z.looseObject({ files: z.record(z.string(), z.looseObject({ sha256: z.string().regex(/^[0-9a-f]{64}$/) })) });

/** The embedded policy's identity: base.safetensors's sha256, as its manifest.json records it. */
export async function embeddedBaseSha256(modelDir: string): Promise<string> {
  const file = path.join(modelDir, 'manifest.json');
  let manifest;
  try {
    manifest = modelManifestSchema.parse(JSON.parse(await readFile(file, 'utf8')));
  } catch (error) {
    throw new Error(`no usable embedded policy at ${modelDir}: ${(error as Error).message}`, { cause: error });
  }
  const sha = manifest.files['base.safetensors']?.sha256;
  if (!sha) throw new Error(`${file} lists no base.safetensors`);
  return sha;
}

export function embeddedPolicy(modelDir: string, tasks?: Recipe['tasks']): PolicyBackend {
  if (tasks?.source === 'gsm8k-file') {
    throw new BackendUnavailableError(['the embedded policy was built for the embedded homework; GSM8K text is outside its vocabulary']);
  }
  return {
    modelDir,
    baseSha256: () => embeddedBaseSha256(modelDir),
    startEngine: ({ role, placement, onLog, onStateChange }) =>
      startEmbeddedEngine({
        modelDir,
        name: `${role}-engine`,
        env: placement.env,
        nice: placement.nice,
        describe: workerDescriptor(role, placement),
        ...(placement.launch ? { launch: placement.launch } : {}),
        ...(onLog ? { onLog } : {}),
        ...(onStateChange ? { onStateChange } : {}),
      }),
    gatewayTokenizer: (engine) => new EngineTokenizer(engine.client),
  };
}
