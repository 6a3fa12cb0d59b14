/**
 * A deliberately bad candidate for the gate's bad-candidate injection (DESIGN
 * §4): a LoRA adapter trained, by real gradient steps, toward what the student
 * rejects — markdown (bold, headers, lists, "Final answer:") rewarded and
 * plainer prose punished, reply against reply in each batch. It is a well-formed
 * adapter that passes every static check; only the probe rounds can catch it.
 *
 * The rollouts load each intermediate adapter into `rollout.engine`: pass the
 * probe engine or a scratch one, never the serving engine (invariant 2).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoraSettings } from '../../../lab/weights/adapterSpec';
import type { Task } from '../../../lab/tasks/task';
import { WeightStore, type StoredCandidate } from '../../../lab/weights/weightStore';
import { DEFAULT_ADAMW, type AdamWConfig } from './adamw';
import { CandidateTrainer } from './candidateTrainer';
import type { RolloutDeps } from './firstReplyRollout';
import { LoraParams } from './loraParams';
import { LoraTrainer } from './loraTrainer';
import { DEFAULT_OBJECTIVE } from './objective';
import { runOnPolicySteps } from './onPolicySteps';
import type { TrainerModel } from './trainerModel';

export interface RewardInvertedOptions {
  readonly model: TrainerModel;
  readonly rollout: RolloutDeps;
  /** Homework tasks to roll out on (the session tasks; never the probe set). */
  readonly tasks: readonly Task[];
  /** The run's weight store: the result is stored there with kind `injected`. */
  readonly store: WeightStore;
  readonly lora?: LoraSettings;
  readonly steps?: number;
  readonly batch?: number;
  readonly lr?: number;
  readonly seed?: number;
}

/** Trains the reward-inverted adapter and stores it as an injected candidate. */
export async function trainRewardInvertedAdapter(options: RewardInvertedOptions): Promise<StoredCandidate> {
  const settings = options.lora ?? { rank: 16, alpha: 32, targets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] };
  // The step size bench:learn found to move this policy's style within a few steps.
  const optimizer: AdamWConfig = { ...DEFAULT_ADAMW, lr: options.lr ?? 1e-2 };
  const seed = options.seed ?? 7;
  const stepCount = options.steps ?? 4;
  const scratch = await mkdtemp(join(tmpdir(), 'gatelab-inverted-'));
  try {
    const trainer = new LoraTrainer(
      options.model.graph,
      LoraParams.init(options.model.shape, settings, seed),
      { objective: { ...DEFAULT_OBJECTIVE }, optimizer, maxTokensPerCall: 2048 },
      0,
      options.model.forward,
    );
    const scratchStore = new CandidateTrainer(trainer, new WeightStore(scratch), { sha256: options.model.baseSha256, nameOrPath: options.model.dir });
    const steps = await runOnPolicySteps({
      rollout: options.rollout,
      trainer: scratchStore,
      tasks: options.tasks,
      batch: options.batch ?? 8,
      steps: stepCount,
      variant: 'reward-inverted',
      seed,
    });
    // Fail closed: an adapter that stopped short is not the bad candidate it claims to be.
    if (steps.length < stepCount) throw new Error(`reward-inverted: step ${steps.length + 1} had no reply to train toward markdown`);
    const final = new CandidateTrainer(trainer, options.store, { sha256: options.model.baseSha256, nameOrPath: options.model.dir });
    return await final.storeCurrent('injected', steps.at(-1)?.report.loss ?? null, 'reward-inverted: trained toward markdown (more markers rewarded, fewer punished)');
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
