/**
 * The trainer-made bad candidates of the trainer protocol's `badCandidate`
 * (src/core/protocols/trainerProtocol.ts; docs/design.md, Injected bad candidates), on the
 * embedded model with its own optimizer — never touching the run's adapter.
 *
 * - collapsed: policy-gradient steps toward ending the reply at once; each
 *   sample is a homework prompt answered by `<|end|>` alone with reward +1.
 *   The old log-prob is written as 0 (probability 1), so the PPO ratio is
 *   π(end) ≤ 1 and the clip never stops the push — a supervised step, in
 *   effect, through the same objective and optimizer the real trainer uses.
 *   The loss is −mean π(end); training stops once the policy ends nearly
 *   every reply at once, or before the update outgrows the norm budget (a
 *   collapsed adapter that verify would reject for its size is not the case
 *   to test: the probes must catch the collapse itself).
 * - reward-inverted: one optimizer step per round on the samples the lab
 *   rolled out and rewarded toward markdown; a fresh adapter and optimizer at
 *   round 1; scratch adapters (under <store>/scratch/) until the last round.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { LoraSettings } from '../../../core/weights/adapterSpec';
import { loraUpdateSquaredNorm } from '../../../core/weights/loraNorm';
import { moduleDims } from '../../../core/weights/policyConfig';
import { WeightStore, type StoredCandidate } from '../../../core/weights/weightStore';
import type { Tokenizer } from '../engine/tokenizer';
import { DEFAULT_ADAMW } from './adamw';
import { CandidateTrainer } from './candidateTrainer';
import { LoraParams } from './loraParams';
import { LoraTrainer } from './loraTrainer';
import { DEFAULT_OBJECTIVE } from './objective';
import type { TokenSample } from './tokenSample';
import type { TrainerModel } from './trainerModel';

/** Step sizes that move this policy within a few steps (bench:learn's). */
const COLLAPSED_LR = 5e-3;
const COLLAPSED_MAX_STEPS = 40;
const REWARD_INVERTED_LR = 1e-2;

export type BadCandidateBase = { readonly sha256: string; readonly nameOrPath: string };

/** ‖Σ (alpha/r)·B·A‖_F of the adapter as it would be written (float32), as the gate's verify computes it. */
export function writtenUpdateNorm(params: LoraParams): number {
  let squared = 0;
  for (const t of params.tensors.values()) {
    if (t.part !== 'A') continue;
    const b = params.tensors.get(`lora.${t.layer}.${t.module}.B`);
    if (b === undefined) return Infinity;
    const dims = moduleDims(params.shape, t.module);
    squared +=
      params.scale * params.scale * loraUpdateSquaredNorm(Float32Array.from(t.data), Float32Array.from(b.data), params.settings.rank, dims.in, dims.out);
  }
  const norm = Math.sqrt(squared);
  return Number.isFinite(norm) ? norm : Infinity;
}

export async function trainCollapsed(
  model: TrainerModel,
  tokenizer: Tokenizer,
  request: {
    seed: number;
    prompts: ReadonlyArray<ReadonlyArray<{ role: 'system' | 'user' | 'assistant'; content: string }>>;
    maxUpdateNorm: number;
    note: string;
  },
  settings: LoraSettings,
  store: WeightStore,
  base: BadCandidateBase,
): Promise<StoredCandidate> {
  const trainer = new LoraTrainer(
    model.graph,
    LoraParams.init(model.shape, settings, request.seed),
    // The samples' old log-probs are the target (π(end) = 1), not a policy's: the ratio must read them as given.
    { objective: { ...DEFAULT_OBJECTIVE, oldLogprobs: 'rollout' }, optimizer: { ...DEFAULT_ADAMW, lr: COLLAPSED_LR }, maxTokensPerCall: 4096 },
    0,
    model.forward,
  );
  const samples: TokenSample[] = request.prompts.map((messages, i) => ({
    sessionId: `collapse-${i}`,
    turn: 0,
    promptIds: tokenizer.encodeChat(messages),
    responseIds: [tokenizer.endId],
    forced: [false],
    logprobs: [0],
    topIds: [[tokenizer.endId]],
    topLogprobs: [[0]],
    reward: 1,
  }));
  let kept = trainer.params.clone();
  let loss: number | null = null;
  for (let step = 0; step < COLLAPSED_MAX_STEPS; step++) {
    const report = await trainer.step(samples);
    if (writtenUpdateNorm(trainer.params) > request.maxUpdateNorm) break;
    kept = trainer.params.clone();
    loss = report.loss;
    if (report.loss < -0.95) break; // π(end) > 0.95 on average: every reply ends at once
  }
  const final = new LoraTrainer(model.graph, kept, trainer.options, trainer.steps, model.forward);
  return new CandidateTrainer(final, store, base).storeCurrent('injected', loss, request.note);
}

/** The reward-inverted rounds of one injection: a scratch trainer that lives from round 1 to the last. */
export class RewardInvertedRounds {
  private current: { seed: number; round: number; trainer: CandidateTrainer } | undefined;

  constructor(
    private readonly model: TrainerModel,
    private readonly settings: LoraSettings,
    private readonly store: WeightStore,
    private readonly base: BadCandidateBase,
  ) {}

  private get scratchDir(): string {
    return join(this.store.root, 'scratch', 'reward-inverted');
  }

  /** One round: a step on its samples; the scratch adapter, or the stored candidate at the last round. */
  async round(
    request: { seed: number; round: number; rounds: number; note: string },
    samples: unknown,
  ): Promise<{ candidate: StoredCandidate; stored: boolean; loss: number }> {
    if (request.round > request.rounds) throw new Error(`round ${request.round} of ${request.rounds}`);
    if (request.round === 1) {
      await rm(this.scratchDir, { recursive: true, force: true });
      const trainer = new LoraTrainer(
        this.model.graph,
        LoraParams.init(this.model.shape, this.settings, request.seed),
        { objective: { ...DEFAULT_OBJECTIVE }, optimizer: { ...DEFAULT_ADAMW, lr: REWARD_INVERTED_LR }, maxTokensPerCall: 2048 },
        0,
        this.model.forward,
      );
      this.current = { seed: request.seed, round: 0, trainer: new CandidateTrainer(trainer, new WeightStore(this.scratchDir), this.base) };
    }
    const scratch = this.current;
    if (scratch === undefined || scratch.seed !== request.seed || scratch.round !== request.round - 1) {
      throw new Error(`reward-inverted: round ${request.round} does not follow round ${scratch?.round ?? 0} of this injection`);
    }
    const { report, candidate } = await scratch.trainer.step(samples);
    scratch.round = request.round;
    if (request.round < request.rounds) return { candidate, stored: false, loss: report.loss };
    this.current = undefined;
    const stored = await new CandidateTrainer(scratch.trainer.trainer, this.store, this.base).storeCurrent('injected', report.loss, request.note);
    await rm(this.scratchDir, { recursive: true, force: true });
    return { candidate: stored, stored: true, loss: report.loss };
  }
}
