/**
 * The composition root's trainer part: `trainer.kind` → the supervised
 * process that implements the trainer protocol
 * (src/core/protocols/trainerProtocol.ts). One case per kind; a backend
 * is one file under trainers/.
 *
 * To add a trainer (as the Python torch trainer did): write trainers/<kind>Trainer.ts
 * that starts its process — a `process` WorkerEntry (an argument array, no
 * shell: e.g. the venv's python with `-m …`, or torchrun for
 * `launcher: torchrun`) with the placement's environment — through
 * `SupervisedWorker` and the lab's `trainerProtocol`, and replace the
 * kind's case below. Everything else (what init carries, restore on
 * resume, each step's candidate through the gate) is the lab's, the same
 * for every trainer.
 */
import type { TrainerProtocol } from '../core/protocols/trainerProtocol';
import type { Recipe } from '../core/recipe/recipeSchema';
import type { RolePlacement } from '../processes/devices/rolePlacement';
import type { SupervisedWorker } from '../processes/supervisedWorker';
import type { WorkerConnection } from '../processes/workerConnection';
import { embeddedTrainer } from './embedded/embeddedTrainer';
import { torchTrainer } from './torch/torchTrainer';

/** What the lab uses of a trainer process (its pid for the logs and tests). */
export type TrainerWorker = Pick<SupervisedWorker<TrainerProtocol>, 'start' | 'call' | 'shutdown' | 'pid'>;

export type TrainerLaunch = {
  placement: RolePlacement;
  /** Runs after every (re)start before any other call: init, then restore when resuming. */
  setup: (connection: WorkerConnection<TrainerProtocol>) => Promise<void>;
  onLog?: (line: string, stream: 'stdout' | 'stderr') => void;
};

export interface TrainerBackend {
  /** Padded tokens per forward/backward call the trainer is told (init.maxTokensPerCall); its own default when absent. */
  readonly maxTokensPerCall?: number;
  /** A supervised trainer process (not started yet: `start()` or the first call starts it). */
  createWorker(launch: TrainerLaunch): TrainerWorker;
}

export function trainerBackend(recipe: Recipe): TrainerBackend {
  const { trainer } = recipe;
  switch (trainer.kind) {
    case 'embedded':
      return embeddedTrainer(recipe);
    case 'torch':
      return torchTrainer(recipe);
    default: {
      const unknown: never = trainer.kind;
      throw new Error(`unknown trainer kind ${JSON.stringify(unknown)}`);
    }
  }
}
