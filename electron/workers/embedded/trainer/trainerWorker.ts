/**
 * The trainer worker process (started by electron/lab/workers/ as `trainer`).
 * Holds the frozen base, grad.onnx, the adapter and the optimizer moments;
 * every `step` either answers with a stored candidate or with an error and no
 * candidate (bad_input, step_refused).
 */
import { readFile } from 'node:fs/promises';
import { serveWorker, WorkerError } from '../../../lab/workers/serveWorker';
import { WeightStore } from '../../../lab/weights/weightStore';
import { ortThreads } from '../ortSession';
import { CandidateTrainer } from './candidateTrainer';
import { LoraParams } from './loraParams';
import { LoraTrainer, TrainerStepError } from './loraTrainer';
import { parsePeftAdapter } from './peftAdapter';
import { loadTrainerModel, type TrainerModel } from './trainerModel';
import { trainerProtocol } from './trainerProtocol';
import { TrainerInputError } from './trainSample';

let model: TrainerModel | undefined;
let candidates: CandidateTrainer | undefined;

serveWorker(
  trainerProtocol,
  {
    async init(params) {
      if (model !== undefined) await model.release();
      model = await loadTrainerModel(params.modelDir, { threads: ortThreads() });
      const settings = params.lora;
      const store = new WeightStore(params.storeDir);
      let lora = LoraParams.init(model.shape, settings, params.seed);
      let step = 0;
      if (params.resumeFrom !== undefined) {
        const stored = await store.get(params.resumeFrom);
        if (stored.manifest.baseModelSha256 !== model.baseSha256) {
          throw new WorkerError('bad_input', `${params.resumeFrom} was trained on base ${stored.manifest.baseModelSha256.slice(0, 12)}…, not this base`);
        }
        lora = parsePeftAdapter(await readFile(stored.path), model.shape, settings);
        step = stored.manifest.step;
      }
      const trainer = new LoraTrainer(model.graph, lora, {
        objective: params.objective,
        optimizer: params.optimizer,
        maxTokensPerCall: params.maxTokensPerCall,
      }, step, model.forward);
      candidates = new CandidateTrainer(trainer, store, { sha256: model.baseSha256, nameOrPath: params.modelDir });
      return { baseSha256: model.baseSha256, parameterCount: lora.parameterCount, step };
    },
    async step(params) {
      if (candidates === undefined) throw new WorkerError('not_initialised', 'call init before step');
      try {
        const { report, candidate } = await candidates.step(params.samples, params.lr);
        return { report: { ...report, sessionRange: [...report.sessionRange], graphCalls: [...report.graphCalls] }, candidate: { version: candidate.version, sha256: candidate.sha256, path: candidate.path, manifestPath: candidate.manifestPath } };
      } catch (error) {
        if (error instanceof TrainerInputError) throw new WorkerError('bad_input', error.message);
        if (error instanceof TrainerStepError) throw new WorkerError('step_refused', error.message);
        throw error;
      }
    },
  },
  {
    dispose: async () => {
      await model?.release();
    },
  },
);
