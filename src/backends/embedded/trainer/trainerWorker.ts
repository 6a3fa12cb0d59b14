/**
 * The embedded trainer's process (started by the lab as `trainer`): the
 * trainer protocol (src/core/protocols/trainerProtocol.ts) over the
 * frozen base, grad.onnx, the adapter and the optimizer moments. Every `step`
 * answers with a stored candidate and its checkpoint, or with an error and
 * neither (bad_input, step_refused). Calls run one at a time, in order of
 * arrival: a bad candidate asked for during a step waits for it.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { trainerProtocol, type InitParams } from '../../../core/protocols/trainerProtocol';
import { loraModuleFromPeft, type LoraSettings } from '../../../core/weights/adapterSpec';
import { WeightStore } from '../../../core/weights/weightStore';
import { serveWorker, WorkerError } from '../../../processes/serveWorker';
import { ortThreads } from '../engine/ortSession';
import { Tokenizer } from '../engine/tokenizer';
import { CandidateTrainer } from './candidateTrainer';
import { LoraParams } from './loraParams';
import { LoraTrainer, TrainerStepError } from './loraTrainer';
import { parsePeftAdapter } from './peftAdapter';
import { RewardInvertedRounds, trainCollapsed } from './trainerBadCandidates';
import { checkpointFiles, CHECKPOINT_FORMAT, readCheckpoint } from './trainerCheckpoint';
import { toTokenSamples } from './toTokenSamples';
import { TrainerInputError } from './tokenSample';
import { loadTrainerModel, type TrainerModel } from './trainerModel';

type Session = {
  readonly init: InitParams;
  readonly model: TrainerModel;
  readonly tokenizer: Tokenizer;
  readonly settings: LoraSettings;
  readonly store: WeightStore;
  readonly base: { readonly sha256: string; readonly nameOrPath: string };
  candidates: CandidateTrainer;
  readonly rewardInverted: RewardInvertedRounds;
};

let session: Session | undefined;
/** One call at a time (the model's graphs and the store are shared). */
let queue: Promise<unknown> = Promise.resolve();
const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
  const next = queue.then(work);
  queue = next.catch(() => undefined);
  return next;
};

function current(): Session {
  if (session === undefined) throw new WorkerError('not_initialised', 'call init before anything else');
  return session;
}

/** The optimizer's configuration from init (the step's lr is given per step). */
function trainerOptions(init: InitParams) {
  const { temperature, clipLow, clipHigh, logRatioClamp, wRl, wOpd, klCoef, opdAdvantageClamp, oldLogprobs } = init.objective;
  return {
    objective: { temperature, clipLow, clipHigh, logRatioClamp, wRl, wOpd, klCoef, opdAdvantageClamp, oldLogprobs },
    optimizer: init.optimizer,
    // About 2k padded tokens per call measured fastest here (larger calls fall out of cache).
    maxTokensPerCall: init.maxTokensPerCall ?? 2048,
  };
}

/** Input problems are the caller's (bad_input); non-finite numbers refuse the step (step_refused). */
async function asProtocolErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof TrainerInputError) throw new WorkerError('bad_input', error.message);
    if (error instanceof TrainerStepError) throw new WorkerError('step_refused', error.message);
    throw error;
  }
}

serveWorker(
  trainerProtocol,
  {
    init: (params) =>
      inTurn(async () => {
        if (params.lora.dtype !== 'F32') throw new WorkerError('bad_request', `the embedded trainer writes F32 adapters, not ${params.lora.dtype}`);
        if (params.objective.entropyCoef !== 0)
          throw new WorkerError('bad_request', `the embedded trainer has no entropy term (entropyCoef ${params.objective.entropyCoef})`);
        await session?.model.release();
        session = undefined;
        const model = await loadTrainerModel(params.modelDir, { threads: ortThreads() });
        if (model.baseSha256 !== params.baseSha256) {
          await model.release();
          throw new WorkerError('bad_request', `${params.modelDir} is base ${model.baseSha256.slice(0, 12)}…, the run's is ${params.baseSha256.slice(0, 12)}…`);
        }
        const tokenizer = Tokenizer.fromJson(JSON.parse(await readFile(path.join(params.modelDir, 'tokenizer.json'), 'utf8')) as unknown);
        const settings: LoraSettings = { rank: params.lora.rank, alpha: params.lora.alpha, targets: params.lora.targets.map(loraModuleFromPeft) };
        const store = new WeightStore(params.storeDir);
        const base = { sha256: model.baseSha256, nameOrPath: params.modelDir };
        const lora = LoraParams.init(model.shape, settings, params.seed);
        const trainer = new LoraTrainer(model.graph, lora, trainerOptions(params), 0, model.forward);
        session = {
          init: params,
          model,
          tokenizer,
          settings,
          store,
          base,
          candidates: new CandidateTrainer(trainer, store, base),
          rewardInverted: new RewardInvertedRounds(model, settings, store, base),
        };
        // stderr is the worker's log (the lab keeps its tail and a file of it per run).
        console.error(`loaded ${params.modelDir} (base ${model.baseSha256.slice(0, 12)}…), LoRA rank ${settings.rank} with ${lora.parameterCount} parameters`);
        return { baseSha256: model.baseSha256, parameterCount: lora.parameterCount, step: 0 };
      }),

    restore: ({ version }) =>
      inTurn(async () => {
        const s = current();
        const stored = await s.store.get(version).catch((error: unknown) => {
          throw new WorkerError('no_checkpoint', (error as Error).message);
        });
        if (stored.manifest.baseModelSha256 !== s.model.baseSha256) {
          throw new WorkerError('bad_request', `${version} was trained on base ${stored.manifest.baseModelSha256.slice(0, 12)}…, not this base`);
        }
        const checkpoint = await s.store.getCheckpoint(version);
        const options = trainerOptions(s.init);
        let trainer: LoraTrainer;
        let restored: 'checkpoint' | 'adapter';
        if (checkpoint !== null) {
          const state = readCheckpoint(checkpoint.files, checkpoint.manifest.format, s.model.shape, s.settings);
          trainer = new LoraTrainer(s.model.graph, state.params, options, 0, s.model.forward);
          trainer.loadOptimizerState(state.optimizer);
          if (trainer.steps !== stored.manifest.step)
            throw new WorkerError('bad_request', `the checkpoint of ${version} is at step ${trainer.steps}, its manifest at ${stored.manifest.step}`);
          restored = 'checkpoint';
        } else {
          // A run from before checkpoints: the weights as stored, fresh moments.
          const lora = parsePeftAdapter(await readFile(stored.path), s.model.shape, s.settings);
          trainer = new LoraTrainer(s.model.graph, lora, options, stored.manifest.step, s.model.forward);
          restored = 'adapter';
        }
        s.candidates = new CandidateTrainer(trainer, s.store, s.base, stored.manifest.dataRange);
        console.error(
          `restored ${version} at step ${trainer.steps} (${restored === 'checkpoint' ? 'weights and optimizer moments' : 'weights, fresh optimizer moments'})`,
        );
        return { step: trainer.steps, restored };
      }),

    step: ({ samples, lr }) =>
      inTurn(() =>
        asProtocolErrors(async () => {
          const s = current();
          const { report, candidate } = await s.candidates.step(toTokenSamples(samples, s.tokenizer), lr);
          const checkpointDir = await s.store.putCheckpoint(candidate.version, {
            step: s.candidates.trainer.steps,
            format: CHECKPOINT_FORMAT,
            files: checkpointFiles(s.candidates.trainer),
          });
          console.error(
            `step ${report.step}: ${report.samples} samples, ${report.tokens} tokens, loss ${report.loss.toFixed(4)}, ${report.seconds.toFixed(1)} s → ${candidate.version}`,
          );
          return {
            report: { ...report, sessionRange: [...report.sessionRange], graphCalls: [...report.graphCalls] },
            candidate: { version: candidate.version, sha256: candidate.sha256, path: candidate.path, manifestPath: candidate.manifestPath },
            checkpointDir,
          };
        }),
      ),

    badCandidate: (params) =>
      inTurn(() =>
        asProtocolErrors(async () => {
          const s = current();
          switch (params.kind) {
            case 'collapsed': {
              const stored = await trainCollapsed(s.model, s.tokenizer, params, s.settings, s.store, s.base);
              return {
                stored: true,
                adapter: { version: stored.version, sha256: stored.sha256, path: stored.path },
                manifestPath: stored.manifestPath,
                loss: stored.manifest.loss,
              };
            }
            case 'reward-inverted': {
              const { candidate, stored, loss } = await s.rewardInverted.round(params, toTokenSamples(params.samples, s.tokenizer));
              return {
                stored,
                adapter: { version: candidate.version, sha256: candidate.sha256, path: candidate.path },
                ...(stored ? { manifestPath: candidate.manifestPath } : {}),
                loss,
              };
            }
            default: {
              const unknown: never = params;
              throw new WorkerError('bad_request', `unknown bad-candidate kind ${JSON.stringify(unknown)}`);
            }
          }
        }),
      ),
  },
  {
    dispose: async () => {
      await session?.model.release();
    },
  },
);
