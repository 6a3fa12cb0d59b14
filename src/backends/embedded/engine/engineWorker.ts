/**
 * The engine worker process: one Engine behind the supervisor's RPC
 * (docs/internals.md, "The embedded engine worker"). Started by
 * src/processes/ — `workerEntry('engine')`.
 */
import { serveWorker, WorkerError } from '../../../processes/serveWorker';
import { Engine } from './engine';
import { engineProtocol } from './embeddedEngineProtocol';

let engine: Engine | undefined;
let loading: Promise<Engine> | undefined;

function loaded(): Engine {
  if (!engine) throw new WorkerError('not_loaded', 'call load({ modelDir }) first');
  return engine;
}

/** `GATELAB_ENGINE_MAX_BATCH=1` gives bit-exact replies under concurrency (see engine.ts). */
function maxBatchFromEnv(): number | undefined {
  const raw = process.env.GATELAB_ENGINE_MAX_BATCH;
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`GATELAB_ENGINE_MAX_BATCH must be a positive integer, got ${JSON.stringify(raw)}`);
  return n;
}
const maxBatch = maxBatchFromEnv();

serveWorker(engineProtocol, {
  load: async ({ modelDir }) => {
    // One model per process: a second load of the same directory is a no-op.
    if (engine && engine.model.dir === modelDir) return engine.info;
    if (engine) throw new WorkerError('bad_request', `already serving ${engine.model.dir}; start another worker for ${modelDir}`);
    const started = performance.now();
    loading ??= Engine.load(modelDir, maxBatch === undefined ? {} : { maxBatch });
    try {
      engine = await loading;
    } catch (error) {
      loading = undefined;
      throw new WorkerError('not_loaded', `cannot load the model: ${(error as Error).message}`);
    }
    // stderr is the worker's log (the lab keeps its tail and a file of it per run).
    console.error(`loaded ${modelDir} (base ${engine.model.baseSha256.slice(0, 12)}…) in ${Math.round(performance.now() - started)} ms`);
    return engine.info;
  },
  setAdapter: async (ref) => {
    const version = await loaded().setAdapter(ref);
    console.error(`serving ${version}`);
    return { version };
  },
  generate: (params, { progress }) => loaded().generate(params, params.stream ? progress : undefined),
  countPromptTokens: ({ messages }) => ({ tokens: loaded().countPromptTokens(messages) }),
  // Before load the engine answers, but says it is not ready.
  health: () => engine?.health() ?? { ok: false, version: null, pending: 0 },
  score: (params) => loaded().score(params),
});
