// A person's (or the bench's) injected candidate: a deliberately bad one of a
// named kind, or an adapter file from disk, written to the run's store and
// staged through the gate like any other — the gate decides.
import path from 'node:path';
import { makeBadCandidate } from '../core/gate/badCandidates';
import type { BadCandidateKind } from '../core/gate/candidateVocabulary';
import type { CandidateRecord } from '../core/gate/gateState';
import type { ReleaseGate } from '../core/gate/releaseGate';
import { stageableAdapterFile } from '../core/gate/stageAdapterFile';
import type { VerifySettings } from '../core/gate/verifyCandidate';
import type { TrainerCaller } from '../core/protocols/trainerProtocol';
import type { Recipe } from '../core/recipe/recipeSchema';
import { runTrainer, type RunBackends } from './composeRun';
import type { RunParts } from './runParts';
import type { RunTasks } from './runTasks';

export type InjectRequest = { kind: BadCandidateKind } | { file: string };

export type InjectContext = {
  runDir: string;
  recipe: Recipe;
  gate: ReleaseGate;
  tasks: RunTasks;
  backends: RunBackends;
  verify: VerifySettings;
  baseSha256: string;
  /** The run's open parts: the probe engine rolls out, the live run's trainer trains. */
  parts: RunParts;
  onLog: ((line: string) => void) | undefined;
};

/** Builds a bad candidate (or reads an adapter file) and stages it through the gate. */
export async function injectCandidate(request: InjectRequest, ctx: InjectContext): Promise<CandidateRecord> {
  const { recipe, runDir } = ctx;
  const modelDir = ctx.backends.policy.modelDir;
  const l = recipe.trainer.lora;
  const input =
    'file' in request
      ? await stageableAdapterFile(runDir, request.file, ctx.baseSha256, { rank: l.rank, alpha: l.alpha, targets: [...l.target_modules] }, modelDir)
      : await makeBadCandidate(request.kind, {
          runDir,
          recipe,
          modelDir,
          spec: ctx.verify.spec,
          tasks: ctx.tasks.sessions,
          rolloutEngine: ctx.parts.probe.client,
          withTrainer: (use) => withTrainer(ctx, use),
          seed: recipe.seed + ctx.gate.candidates().length,
          baseSha256: ctx.baseSha256,
        });
  return ctx.gate.stage(input);
}

/**
 * The trained bad kinds are the run's trainer's to make: the live run's
 * trainer process, or — on a run opened for its gate only — one started
 * (with the recipe's backend and placement) for this request and stopped after.
 */
async function withTrainer<T>(ctx: InjectContext, use: (trainer: TrainerCaller) => Promise<T>): Promise<T> {
  const live = ctx.parts.live;
  if (live) return use(live.feed.trainerWorker);
  const trainer = runTrainer(ctx.backends, ctx.recipe, {
    modelDir: ctx.backends.policy.modelDir,
    baseSha256: ctx.baseSha256,
    storeDir: path.join(ctx.runDir, 'weights'),
  });
  const log = ctx.onLog;
  const worker = trainer.createWorker({
    setup: async (connection) => {
      await connection.call('init', trainer.init, { timeoutMs: 120_000 });
    },
    ...(log ? { onLog: (line: string) => log(`trainer: ${line}`) } : {}),
  });
  try {
    await worker.start();
    return await use(worker);
  } finally {
    await worker.shutdown(5000);
  }
}
