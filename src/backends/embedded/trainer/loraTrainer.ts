/**
 * One optimizer step per batch of judged turns (docs/design.md, The objective): validate the
 * batch, score it with the frozen base (OPD teacher, KL reference), compute
 * the loss and the LoRA gradients, clip, AdamW. Fails closed: a refused batch
 * or a non-finite loss, gradient or update leaves the adapter as it was, so no
 * candidate can come out of it.
 */
import { AdamW, clipGradNorm, type AdamWConfig, type AdamWState } from './adamw';
import { batchGradients, type BatchGradients } from './batchGradients';
import { frozenBaseScores } from './frozenBaseScores';
import type { GradGraph } from './gradGraph';
import type { GraphCall, LogitsSource } from './logitsSource';
import type { LoraParams } from './loraParams';
import type { ObjectiveConfig } from './objective';
import { parseTokenBatch, TrainerInputError, type TokenSample } from './tokenSample';

export interface TrainerOptions {
  readonly objective: ObjectiveConfig;
  readonly optimizer: AdamWConfig;
  /** Padded tokens per graph call; bounds memory (activations of a whole call are kept for its backward). */
  readonly maxTokensPerCall: number;
}

export interface StepReport {
  readonly step: number;
  readonly samples: number;
  readonly tokens: number;
  readonly loss: number;
  readonly pg: number;
  readonly opd: number;
  /** Logged every step; it reaches the loss with klCoef. */
  readonly kl: number;
  readonly klCoef: number;
  readonly gradNorm: number;
  readonly clipped: boolean;
  readonly lr: number;
  /** L2 norm of the parameter change of this step. */
  readonly updateNorm: number;
  readonly seconds: number;
  /** Trainable response tokens per second, the whole step (frozen-base scoring included). */
  readonly tokensPerSecond: number;
  /** Tokens through grad.onnx (padding, forward and backward calls included). */
  readonly graphTokens: number;
  readonly sessionRange: readonly string[];
  /** Every graph call of the step (forward-only and grad), with its padded shape. */
  readonly graphCalls: readonly GraphCall[];
}

/** A step that was refused after validation (non-finite numbers); the adapter is unchanged. */
export class TrainerStepError extends Error {
  override readonly name = 'TrainerStepError';
}

export class LoraTrainer {
  private readonly optimizer: AdamW;
  private current: LoraParams;

  constructor(
    readonly graph: GradGraph,
    params: LoraParams,
    readonly options: TrainerOptions,
    /** Steps already behind the given adapter (a resumed run); version ids continue from here. */
    private readonly stepsBefore = 0,
    /** Forward-only passes (current policy, teacher, KL reference); grad.onnx itself when absent. */
    readonly forward: LogitsSource = graph,
  ) {
    this.optimizer = new AdamW(options.optimizer);
    this.current = params;
  }

  get params(): LoraParams {
    return this.current;
  }

  /** The optimizer's moments and step count (for a checkpoint). */
  optimizerState(): AdamWState {
    return this.optimizer.state();
  }

  /** Continues with a checkpoint's optimizer state (construct with stepsBefore 0: the step count is the optimizer's). */
  loadOptimizerState(state: AdamWState): void {
    if (this.stepsBefore !== 0) throw new Error('a trainer that continues from a checkpoint counts its steps in the optimizer (stepsBefore must be 0)');
    this.optimizer.load(state);
  }

  get steps(): number {
    return this.stepsBefore + this.optimizer.steps;
  }

  /** Schema, vocabulary and context-length checks; throws TrainerInputError. */
  validate(raw: unknown): TokenSample[] {
    const samples = parseTokenBatch(raw, this.graph.shape.vocabSize);
    const max = this.graph.shape.maxPositions;
    const tooLong = samples.findIndex((s) => Math.max(s.promptIds.length, s.hintedPromptIds?.length ?? 0) + s.responseIds.length > max);
    if (tooLong >= 0) {
      throw new TrainerInputError(
        `the training batch was refused, no candidate produced:\n  sample ${tooLong}: prompt + response exceed the model's ${max} positions`,
      );
    }
    return samples;
  }

  /** Loss and gradients of a validated batch at the current adapter (no update). */
  async gradients(samples: readonly TokenSample[], calls?: GraphCall[]): Promise<BatchGradients> {
    const { objective, maxTokensPerCall } = this.options;
    const scores = await frozenBaseScores(
      this.forward,
      samples,
      { needBase: objective.klCoef > 0, temperature: objective.temperature, maxTokensPerCall },
      calls,
    );
    return batchGradients(this.graph, this.current, samples, scores, objective, maxTokensPerCall, this.forward, calls);
  }

  async step(raw: unknown, lr = this.options.optimizer.lr): Promise<StepReport> {
    const started = performance.now();
    const samples = this.validate(raw);
    const graphCalls: GraphCall[] = [];
    const result = await this.gradients(samples, graphCalls);
    if (!Number.isFinite(result.loss)) throw new TrainerStepError(`the loss is ${result.loss}; the step was not taken`);
    const gradList = [...result.grads.values()];
    const gradNorm = clipGradNorm(gradList, this.options.optimizer.maxGradNorm);
    if (!Number.isFinite(gradNorm)) throw new TrainerStepError(`the gradient norm is ${gradNorm}; the step was not taken`);

    const next = this.current.clone();
    const params = new Map([...next.tensors].map(([k, t]) => [k, t.data] as const));
    this.optimizer.step(params, result.grads, lr);
    if (!next.allFinite()) throw new TrainerStepError('the update produced non-finite weights; the step was not taken');
    let update = 0;
    for (const [key, t] of next.tensors) {
      const before = this.current.tensors.get(key)?.data as Float64Array;
      for (let i = 0; i < t.data.length; i += 1) update += ((t.data[i] as number) - (before[i] as number)) ** 2;
    }
    this.current = next;
    const seconds = (performance.now() - started) / 1000;
    return {
      step: this.steps,
      samples: samples.length,
      tokens: result.tokens,
      loss: result.loss,
      pg: result.pg,
      opd: result.opd,
      kl: result.kl,
      klCoef: this.options.objective.klCoef,
      gradNorm,
      clipped: gradNorm > this.options.optimizer.maxGradNorm,
      lr,
      updateNorm: Math.sqrt(update),
      seconds,
      tokensPerSecond: result.tokens / seconds,
      graphTokens: result.graphTokens,
      sessionRange: [...new Set(samples.map((s) => s.sessionId))],
      graphCalls,
    };
  }
}
