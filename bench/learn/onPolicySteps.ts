/**
 * On-policy training in its plainest form: each step asks the engine for first
 * replies with the trainer's latest candidate loaded, judges them, trains one
 * optimizer step on the judged turns and loads the new candidate. bench:learn
 * measures it (its reward-inverted variant is the bad candidate's rewards,
 * src/core/gate/badCandidates.ts, for comparison).
 * (The run's orchestrator does the same through the gate: there, sessions are
 * served by the promoted version, not by every candidate.)
 */
import { countViolations } from '../../src/core/judge/criterion';
import { towardWorseRewards } from '../../src/core/judge/badnessRewards';
import { rolloutSeed } from '../../src/core/tasks/rng';
import type { Task } from '../../src/core/tasks/task';
import type { StoredCandidate } from '../../src/core/weights/weightStore';
import type { CandidateTrainer } from '../../src/backends/embedded/trainer/candidateTrainer';
import { judgedFirstReplies, type JudgedFirstReply, type RolloutDeps } from './firstReplyRollout';
import type { StepReport } from '../../src/backends/embedded/trainer/loraTrainer';
import type { TokenSample } from '../../src/backends/embedded/trainer/tokenSample';

/** Which terms a sample keeps (the judge's dispatch table, or an ablation of it). */
export const SIGNAL_VARIANTS = ['both', 'rl-only', 'opd-only', 'reward-inverted'] as const;
export type SignalVariant = (typeof SIGNAL_VARIANTS)[number];

/**
 * The sample a variant trains on, or null when the variant leaves nothing of
 * it. `markdownReward` is the reward-inverted variant's (towardWorseRewards)
 * and only that variant's.
 */
export function applyVariant(sample: TokenSample, variant: SignalVariant, markdownReward?: number): TokenSample | null {
  switch (variant) {
    case 'both':
      return sample;
    case 'rl-only': {
      if (sample.reward === 0) return null;
      const { hintedPromptIds: _teacher, teacherTopLogprobs: _scored, ...rest } = sample;
      return rest;
    }
    case 'opd-only':
      if (sample.hintedPromptIds === undefined && sample.teacherTopLogprobs === undefined) return null;
      return { ...sample, reward: 0 };
    case 'reward-inverted': {
      // Trained toward what the student rejects: markdown rewarded, plain prose punished.
      if (markdownReward === undefined) throw new Error("the reward-inverted variant needs the reply's markdown reward");
      if (markdownReward === 0) return null;
      const { hintedPromptIds: _teacher, teacherTopLogprobs: _scored, ...rest } = sample;
      return { ...rest, reward: markdownReward };
    }
    default: {
      const unreachable: never = variant;
      throw new Error(`unknown variant ${String(unreachable)}`);
    }
  }
}

export interface OnPolicyStep {
  readonly step: number;
  readonly replies: readonly JudgedFirstReply[];
  readonly samples: number;
  /** Share of this step's first replies that passed the criterion (the rollout's own pass rate). */
  readonly rolloutPass: number;
  readonly report: StepReport;
  readonly candidate: StoredCandidate;
  readonly rolloutSeconds: number;
}

export interface OnPolicyOptions {
  readonly rollout: RolloutDeps;
  readonly trainer: CandidateTrainer;
  readonly tasks: readonly Task[];
  /** Judged turns per step; tasks are taken in order, wrapping around. */
  readonly batch: number;
  /** Judged turns each step trains on: its batch and the newest before it (default: the batch; see recipe window_turns). */
  readonly window?: number;
  readonly steps: number;
  readonly variant: SignalVariant;
  readonly seed: number;
  /** Learning rate of step k (1-based); the optimizer's own when absent. */
  readonly lr?: (step: number) => number;
  /** Called after each step with the new candidate loaded in the engine. */
  readonly afterStep?: (step: OnPolicyStep) => Promise<void>;
}

/** The steps taken: fewer than `steps` when a batch left nothing to train under the variant. */
export async function runOnPolicySteps(options: OnPolicyOptions): Promise<OnPolicyStep[]> {
  const { rollout, trainer, tasks, batch } = options;
  if (tasks.length === 0) throw new Error('no tasks to roll out');
  const done: OnPolicyStep[] = [];
  let current: StoredCandidate | null = null;
  let recent: TokenSample[] = [];
  for (let step = 1; step <= options.steps; step += 1) {
    await rollout.engine.setAdapter(current === null ? null : { version: current.version, sha256: current.sha256, path: current.path });
    const picked = Array.from({ length: batch }, (_, i) => tasks[((step - 1) * batch + i) % tasks.length] as Task);
    const started = performance.now();
    const replies = await judgedFirstReplies(
      rollout,
      picked,
      picked.map((_, i) => rolloutSeed(options.seed, step, i)),
    );
    const rolloutSeconds = (performance.now() - started) / 1000;
    const markdown = options.variant === 'reward-inverted' ? towardWorseRewards(replies.map((r) => countViolations(r.verdict))) : [];
    const samples = replies.flatMap((r, i) => {
      const sample = r.sample === null ? null : applyVariant(r.sample, options.variant, markdown[i]);
      return sample === null ? [] : [sample];
    });
    // Nothing left that trains under this variant (OPD only, say, once every reply
    // passes and draws no hint): the policy stays where it is, so the run ends here.
    if (samples.length === 0) break;
    recent = [...recent, ...samples].slice(-(options.window ?? samples.length));
    const { report, candidate } = await trainer.step(recent, options.lr?.(step));
    current = candidate;
    await rollout.engine.setAdapter({ version: candidate.version, sha256: candidate.sha256, path: candidate.path });
    const record: OnPolicyStep = {
      step,
      replies,
      samples: recent.length,
      rolloutPass: replies.filter((r) => r.verdict.accepted).length / replies.length,
      report,
      candidate,
      rolloutSeconds,
    };
    done.push(record);
    await options.afterStep?.(record);
  }
  return done;
}
