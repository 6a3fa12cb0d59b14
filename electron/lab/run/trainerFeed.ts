// Judged turns → the trainer worker → candidates for the gate. One optimizer
// step per `batch_turns` new judged turns (the reference's 16), taken in
// session order; a step trains on its batch and, with `window_turns`, on the
// newest turns before it too. Each step's candidate is journaled, then staged
// to the gate like any other candidate.
//
// The trainer works in its own process, and the gateway keeps serving while
// it steps; but the scripted student's next session waits for the step in
// flight (`stepDone`), so the trainer never falls behind the sessions. Without
// that wait a trainer slower than the sessions fell ever further behind (with
// a 16-turn window it had trained on 36 of 108 judged turns by session 36),
// training on turns from versions long gone.
//
// Durable: the journal records how many judged turns each step consumed
// (`samplesThrough`), so after a crash the turns after the last step are fed
// again and none is trained twice; the trainer resumes from the last step's
// stored adapter.
import path from 'node:path';
import type { RunJournal } from '../journal/runJournal';
import type { ReleaseGate } from '../gate/releaseGate';
import { niceOf, windowTurns, workerRole, type Recipe } from '../recipe/recipeSchema';
import { loraModuleFromPeft } from '../weights/adapterSpec';
import { SupervisedWorker } from '../workers/supervisedWorker';
import { workerEntry } from '../workers/workerEntry';
import { WorkerCallError } from '../workers/workerMessages';
import { trainerProtocol } from '../../workers/embedded/trainer/trainerProtocol';
import type { TrainSample } from '../../workers/embedded/trainer/trainSample';

export type TrainerFeedOptions = {
  runDir: string;
  journal: RunJournal;
  gate: ReleaseGate;
  recipe: Recipe;
  modelDir: string;
  /** Every judged turn of the completed sessions, in session order (read back from the run on resume). */
  samples: TrainSample[];
  onLog?: (line: string) => void;
  /** A failure the feed cannot record (the journal itself failed): the run must stop. */
  onFatal: (error: Error) => void;
  /** The trainer worker; by default the embedded trainer's, supervised (unit tests pass a double). */
  worker?: TrainerWorker;
};

export type TrainerWorker = Pick<SupervisedWorker<typeof trainerProtocol>, 'start' | 'call' | 'shutdown'>;

export class TrainerFeed {
  private readonly worker: TrainerWorker;
  private readonly all: TrainSample[];
  private consumed: number;
  /** Turns before this index never train again: a refused step's batch (bad input) stays out of later windows. */
  private trainFrom: number;
  private resumeFrom: string | undefined;
  private inFlight: Promise<void> | undefined;
  private starting: Promise<void> | undefined;
  private stopped = false;
  lastStep = 0;

  constructor(private readonly options: TrainerFeedOptions) {
    this.all = [...options.samples];
    const steps = options.journal.events.filter((e) => e.type === 'trainer-step' || e.type === 'trainer-step-refused');
    const last = steps.at(-1);
    this.consumed = last?.samplesThrough ?? 0;
    const lastRefused = [...steps].reverse().find((e) => e.type === 'trainer-step-refused');
    this.trainFrom = lastRefused?.samplesThrough ?? 0;
    const lastTrained = [...steps].reverse().find((e) => e.type === 'trainer-step');
    this.resumeFrom = lastTrained?.type === 'trainer-step' ? lastTrained.candidate.version : undefined;
    this.lastStep = lastTrained?.type === 'trainer-step' ? lastTrained.step : 0;
    const { recipe } = options;
    const t = recipe.trainer;
    this.worker = options.worker ?? new SupervisedWorker({
      name: 'trainer',
      protocol: trainerProtocol,
      entry: () => workerEntry('trainer'),
      nice: niceOf(recipe.devices.trainer),
      describe: workerRole('trainer', recipe.devices.trainer),
      startTimeoutMs: 120_000,
      // After every (re)start: the model, the store and the adapter of the last journaled step.
      setup: async (connection) => {
        await connection.call('init', {
          modelDir: options.modelDir,
          storeDir: path.join(options.runDir, 'weights'),
          lora: { rank: t.lora.rank, alpha: t.lora.alpha, targets: t.lora.target_modules.map(loraModuleFromPeft) },
          objective: {
            temperature: 1,
            clipLow: t.loss.clip_low,
            clipHigh: t.loss.clip_high,
            logRatioClamp: t.loss.log_ratio_clamp,
            wRl: t.loss.w_rl,
            wOpd: t.loss.w_opd,
            klCoef: t.loss.kl_coef,
            opdAdvantageClamp: t.loss.opd_advantage_clamp,
            oldLogprobs: t.loss.old_logprobs,
          },
          optimizer: { lr: t.optimizer.lr, betas: t.optimizer.betas, weightDecay: t.optimizer.weight_decay },
          seed: recipe.seed,
          ...(this.resumeFrom ? { resumeFrom: this.resumeFrom } : {}),
          maxTokensPerCall: 4096,
        }, { timeoutMs: 120_000 });
      },
      ...(options.onLog ? { onLog: (line: string) => options.onLog?.(`trainer: ${line}`) } : {}),
    });
  }

  start(): Promise<void> {
    this.starting ??= this.startWorker();
    return this.starting;
  }

  private async startWorker(): Promise<void> {
    await this.worker.start();
    // A step journaled just before a crash may not have reached the gate yet.
    for (const e of this.options.journal.events) {
      if (e.type !== 'trainer-step') continue;
      const staged = this.options.gate.candidates().some((c) => c.version === e.candidate.version && c.source.kind === 'trainer');
      if (!staged) await this.options.gate.stage({ ...e.candidate, source: { kind: 'trainer', step: e.step } });
    }
    this.maybeStep();
  }

  /** Resolves once no optimizer step is in flight (the wait described above). */
  async stepDone(): Promise<void> {
    while (this.inFlight && !this.stopped) await this.inFlight;
  }

  get pendingTurns(): number {
    return this.all.length - this.consumed;
  }

  /** Adds a completed session's judged turns (after its session-completed event is on disk). */
  add(samples: readonly TrainSample[]): void {
    this.all.push(...samples);
    this.maybeStep();
  }

  /**
   * Waits for the worker to start, then for the step in flight and any batch
   * already complete behind it. (A resumed run whose sessions are all done
   * flushes at once: without waiting for the start, the batches its killed
   * predecessors left untrained would never train.)
   */
  async flush(): Promise<void> {
    // A failed start is the run's to report (start's caller); here it only means nothing trains.
    await this.starting?.catch(() => undefined);
    while (this.inFlight) await this.inFlight;
  }

  async close(): Promise<void> {
    this.stopped = true;
    await this.flush();
    await this.worker.shutdown(5000);
  }

  private maybeStep(): void {
    const { trainer } = this.options.recipe;
    if (this.inFlight || this.stopped || this.pendingTurns < trainer.batch_turns) return;
    const through = this.consumed + trainer.batch_turns;
    const samples = this.all.slice(Math.max(this.trainFrom, through - windowTurns(trainer)), through);
    this.inFlight = this.step(samples, through)
      .catch((error: unknown) => this.options.onFatal(error as Error))
      .finally(() => {
      this.inFlight = undefined;
      this.maybeStep();
    });
  }

  private async step(samples: TrainSample[], through: number): Promise<void> {
    const { journal, gate, runDir } = this.options;
    try {
      const lr = learningRate(this.options.recipe.trainer.optimizer, this.lastStep + 1);
      const { report, candidate } = await this.worker.call('step', { samples, lr }, { timeoutMs: 600_000 });
      const blob = path.relative(runDir, candidate.path);
      const stats = { lr: report.lr, loss: report.loss, pg: report.pg, opd: report.opd, kl: report.kl, klCoef: report.klCoef, gradNorm: report.gradNorm, updateNorm: report.updateNorm, tokens: report.tokens, seconds: report.seconds };
      await journal.append({
        type: 'trainer-step',
        step: report.step,
        samplesThrough: through,
        samples: samples.length,
        stats,
        candidate: { version: candidate.version, sha256: candidate.sha256, blob },
      });
      this.consumed = through;
      this.resumeFrom = candidate.version;
      this.lastStep = report.step;
      await gate.stage({ version: candidate.version, sha256: candidate.sha256, blob, source: { kind: 'trainer', step: report.step } });
    } catch (error) {
      // Fail closed: the batch makes no candidate; it is recorded and not retried.
      const code = error instanceof WorkerCallError ? error.code : 'error';
      await journal.append({ type: 'trainer-step-refused', samplesThrough: through, samples: samples.length, code, message: (error as Error).message });
      this.consumed = through;
      this.trainFrom = through;
      this.options.onLog?.(`trainer step refused (${code}): ${(error as Error).message}`);
    }
  }
}

/** The learning rate of trainer step k (1-based) under the recipe's schedule. */
export function learningRate(optimizer: Recipe['trainer']['optimizer'], step: number): number {
  const { schedule } = optimizer;
  switch (schedule.kind) {
    case 'constant':
      return optimizer.lr;
    case 'linear':
      return optimizer.lr * Math.max(schedule.min_ratio, 1 - (step - 1) / schedule.steps);
    default: {
      const unknown: never = schedule;
      throw new Error(`unknown schedule ${JSON.stringify(unknown)}`);
    }
  }
}
