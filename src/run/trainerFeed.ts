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
// again and none is trained twice; the trainer restores the last step's
// checkpoint (adapter, optimizer moments, step), so the next step is the one
// an uninterrupted run would have taken.
import path from 'node:path';
import type { RunJournal } from '../core/journal/runJournal';
import type { ReleaseGate } from '../core/gate/releaseGate';
import { windowTurns, type Recipe } from '../core/recipe/recipeSchema';
import type { RunTrainer, TrainerInitInput, TrainerWorker } from './composeRun';
import type { TrainerProtocol } from '../core/protocols/trainerProtocol';
import type { ParamsOf, ResultOf } from '../processes/workerMessages';
import type { TrainSample } from '../core/protocols/trainSample';
import { WeightStore } from '../core/weights/weightStore';
import { WorkerCallError } from '../processes/workerMessages';
import { chooseBatch, excludedSessionIds, pendingIncluded, sessionIdOf } from './live/sessionExclusion';

export type { TrainerWorker };

export type TrainerFeedOptions = {
  runDir: string;
  journal: RunJournal;
  gate: ReleaseGate;
  recipe: Recipe;
  /** The run's base identity: the trainer must load this base, and every candidate must name it. */
  baseSha256: string;
  /** Every judged turn of the completed sessions, in session order (read back from the run on resume). */
  samples: TrainSample[];
  onLog?: (line: string) => void;
  /** A failure the feed cannot record (the journal itself failed): the run must stop. */
  onFatal: (error: Error) => void;
} & (
  | {
      /** The recipe's trainer for this run folder (the composition root's runTrainer). */
      trainer: RunTrainer;
    }
  | {
      /** A ready-made trainer worker (unit tests pass a double). */
      worker: TrainerWorker;
    }
);

export class TrainerFeed {
  private readonly worker: TrainerWorker;
  /** What the trainer is initialised with (absent with a ready-made worker). */
  private readonly init: TrainerInitInput | undefined;
  private readonly store: WeightStore;
  private readonly all: TrainSample[];
  private consumed: number;
  /** Turns before this index never train again: a refused step's batch (bad input) stays out of later windows. */
  private trainFrom: number;
  private resumeFrom: string | undefined;
  private inFlight: Promise<void> | undefined;
  private starting: Promise<void> | undefined;
  private stopped = false;
  /** Sessions a person excluded from training: their turns never reach the trainer again. */
  private readonly excluded: Set<string>;
  private readonly stopFollowing: () => void;
  lastStep = 0;

  constructor(private readonly options: TrainerFeedOptions) {
    this.all = [...options.samples];
    this.store = new WeightStore(path.join(options.runDir, 'weights'));
    const steps = options.journal.events.filter((e) => e.type === 'trainer-step' || e.type === 'trainer-step-refused');
    const last = steps.at(-1);
    this.consumed = last?.samplesThrough ?? 0;
    const lastRefused = [...steps].reverse().find((e) => e.type === 'trainer-step-refused');
    this.trainFrom = lastRefused?.samplesThrough ?? 0;
    const lastTrained = [...steps].reverse().find((e) => e.type === 'trainer-step');
    this.resumeFrom = lastTrained?.type === 'trainer-step' ? lastTrained.candidate.version : undefined;
    this.lastStep = lastTrained?.type === 'trainer-step' ? lastTrained.step : 0;
    this.excluded = excludedSessionIds(options.journal.events);
    this.stopFollowing = options.journal.onEvent((e) => {
      const started = options.journal.events[0];
      if (e.type === 'session-excluded' && started?.type === 'run-started') this.excluded.add(sessionIdOf(started.runId, e.session));
    });
    if ('worker' in options) {
      this.worker = options.worker;
      return;
    }
    this.init = options.trainer.init;
    this.worker = options.trainer.createWorker({
      // After every (re)start: the model and the store, then the state of the last journaled step.
      setup: (connection) => this.syncTrainer((method, params) => connection.call(method, params as never, { timeoutMs: 120_000 })),
      ...(options.onLog ? { onLog: (line: string) => options.onLog?.(`trainer: ${line}`) } : {}),
    });
  }

  /** Puts the trainer where the journal is: init, then the last journaled step's checkpoint. */
  private async syncTrainer(
    call: <M extends 'init' | 'restore'>(method: M, params: ParamsOf<TrainerProtocol, M>) => Promise<ResultOf<TrainerProtocol, M>>,
  ): Promise<void> {
    if (!this.init) return;
    const started = await call('init', this.init);
    if (started.baseSha256 !== this.options.baseSha256) {
      throw new Error(`the trainer loaded base ${started.baseSha256.slice(0, 12)}…, the run is on ${this.options.baseSha256.slice(0, 12)}…`);
    }
    if (this.resumeFrom === undefined) return;
    const restored = await call('restore', { version: this.resumeFrom });
    if (restored.step !== this.lastStep) throw new Error(`the trainer restored ${this.resumeFrom} at step ${restored.step}, the journal says ${this.lastStep}`);
    if (restored.restored !== 'checkpoint')
      this.options.onLog?.(`trainer: ${this.resumeFrom} has no checkpoint; resumed from its weights with fresh optimizer moments`);
  }

  /** The trainer process (the run's; bad candidates of the trainer-made kinds are asked of it too). */
  get trainerWorker(): TrainerWorker {
    return this.worker;
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

  /** Judged turns waiting for a step (excluded sessions' turns do not count). */
  get pendingTurns(): number {
    return pendingIncluded(this.all, this.consumed, this.excluded);
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
    this.stopFollowing();
    await this.flush();
    await this.worker.shutdown(5000);
  }

  private maybeStep(): void {
    const { trainer } = this.options.recipe;
    // The control arm keeps every judged turn (the run's files are the trained arm's) but never steps.
    if (this.options.recipe.arm === 'control') return;
    if (this.inFlight || this.stopped || this.pendingTurns < trainer.batch_turns) return;
    const choice = chooseBatch(this.all, {
      consumed: this.consumed,
      trainFrom: this.trainFrom,
      batchTurns: trainer.batch_turns,
      window: windowTurns(trainer),
      excluded: this.excluded,
    });
    if (!choice) return;
    const { through } = choice;
    const samples = choice.positions.map((i) => this.all[i]!);
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
      // Fail closed on what another process wrote: the version must be complete in the store and be what the answer says.
      const stored = await this.store.get(candidate.version).catch((error: unknown) => {
        throw new WorkerCallError(
          'bad_candidate',
          `the trainer's candidate ${candidate.version} is not complete in the weight store: ${(error as Error).message}`,
        );
      });
      if (stored.sha256 !== candidate.sha256 || path.resolve(stored.path) !== path.resolve(candidate.path) || stored.manifest.step !== report.step) {
        throw new WorkerCallError(
          'bad_candidate',
          `the trainer answered ${candidate.version} (${candidate.sha256.slice(0, 12)}…, step ${report.step}); the store holds ${stored.sha256.slice(0, 12)}…, step ${stored.manifest.step}`,
        );
      }
      if (stored.manifest.baseModelSha256 !== this.options.baseSha256) {
        throw new WorkerCallError(
          'bad_candidate',
          `the trainer's candidate ${candidate.version} names base ${stored.manifest.baseModelSha256.slice(0, 12)}…, not the run's`,
        );
      }
      const blob = path.relative(runDir, stored.path);
      const stats = {
        lr: report.lr,
        loss: report.loss,
        pg: report.pg,
        opd: report.opd,
        kl: report.kl,
        klCoef: report.klCoef,
        gradNorm: report.gradNorm,
        updateNorm: report.updateNorm,
        tokens: report.tokens,
        seconds: report.seconds,
      };
      await journal.append({
        type: 'trainer-step',
        step: report.step,
        samplesThrough: through,
        samples: samples.length,
        sessionIds: [...new Set(samples.map((s) => s.sessionId))],
        stats,
        candidate: { version: candidate.version, sha256: candidate.sha256, blob },
      });
      this.consumed = through;
      this.resumeFrom = candidate.version;
      this.lastStep = report.step;
      await gate.stage({ version: candidate.version, sha256: candidate.sha256, blob, source: { kind: 'trainer', step: report.step } });
      // A resume restores the last journaled step, now this one: older checkpoints (megabytes each) go.
      // Housekeeping only: one left behind costs disk, never correctness.
      await this.store
        .pruneCheckpoints([candidate.version])
        .catch((error: unknown) => this.options.onLog?.(`trainer: could not remove old checkpoints: ${(error as Error).message}`));
    } catch (error) {
      // Fail closed: the batch makes no candidate; it is recorded and not retried.
      const code = error instanceof WorkerCallError ? error.code : 'error';
      await journal.append({ type: 'trainer-step-refused', samplesThrough: through, samples: samples.length, code, message: (error as Error).message });
      this.consumed = through;
      this.trainFrom = through;
      this.options.onLog?.(`trainer step refused (${code}): ${(error as Error).message}`);
      // The trainer took a step the lab refused after the fact: put it back where the journal is.
      // (transfer_failed: a remote trainer's candidate did not arrive intact — it stepped all the same.)
      if (code === 'bad_candidate' || code === 'transfer_failed')
        await this.syncTrainer((method, params) => this.worker.call(method, params as never, { timeoutMs: 120_000 }));
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
