/**
 * What the lab uses of a trainer: a supervised process that implements the
 * trainer protocol (src/core/protocols/trainerProtocol.ts). A trainer
 * backend is the `trainer` part of a backend folder's descriptor
 * (backendDescriptor.ts, registry.ts); see src/backends/README.md. What
 * init carries, restore on resume, each step's candidate through the gate
 * are the lab's, the same for every trainer.
 */
import type { TrainerProtocol } from '../core/protocols/trainerProtocol';
import type { Recipe } from '../core/recipe/recipeSchema';
import type { RolePlacement } from '../processes/devices/rolePlacement';
import type { SupervisedWorker } from '../processes/supervisedWorker';
import type { WorkerConnection } from '../processes/workerConnection';
import type { Env } from './backendDescriptor';
import { registeredPart } from './registeredPart';
import { backendRegistry, type BackendRegistry } from './registry';

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

/** The trainer of the recipe's `trainer.kind`, its section checked by the kind's own schema. */
export function trainerBackend(recipe: Recipe, options: { env?: Env } = {}, registry: BackendRegistry = backendRegistry): TrainerBackend {
  return registeredPart(registry, 'trainer', recipe.trainer.kind).create(recipe.trainer, { recipe, ...options });
}
