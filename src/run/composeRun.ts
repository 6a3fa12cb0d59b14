/**
 * The composition root: the one place that turns a recipe into the parts of
 * a run — `policy.kind` → serving and probe engines and the gateway's
 * tokenizer, `trainer.kind` → the trainer process, `student.kind` → the
 * student, the judges as the recipe says, and each role placed on its
 * devices. `gatelab run`, the desktop and `gatelab serve` all build their
 * parts here; nothing else in the lab names a backend.
 *
 * A recipe this build or this host cannot run is refused with every reason
 * at once (BackendUnavailableError), before anything starts.
 */
import { createTurnJudge } from '../core/judge/createTurnJudge';
import type { TurnJudge } from '../core/judge/turnJudge';
import type { StudentFactory } from '../core/protocols/studentProtocol';
import type { Recipe, WorkerDevice } from '../core/recipe/recipeSchema';
import { detectHostGpus, type HostGpus } from '../processes/devices/hostGpus';
import { devicePlacementProblems, rolePlacement, type RoleName, type RolePlacement } from '../processes/devices/rolePlacement';
import { BackendUnavailableError } from '../backends/backendUnavailable';
import { policyBackend, type PolicyBackend, type RecipePathResolver } from '../backends/policyBackend';
import { studentBackend } from '../backends/studentBackend';
import { trainerBackend, type TrainerBackend, type TrainerLaunch, type TrainerWorker } from '../backends/trainerBackend';
import { trainerInitParams, type TrainerInitInput } from '../backends/trainerInitParams';
import { rayPlacement, rayRoleOf, rayRunnerProblems } from '../remote/ray/rayPlacement';

export type RunBackends = {
  policy: PolicyBackend;
  trainer: TrainerBackend;
  students: StudentFactory;
  /** The PRM and hint judge (rule or OpenAI-compatible, per part). */
  judge(): TurnJudge;
  /** Where a role's process runs: CUDA_VISIBLE_DEVICES and nice. */
  placement(role: RoleName): RolePlacement;
};

// What the run uses of the backends, handed over here so that nothing else in src/run names a backend.
export { BackendUnavailableError };
export type { TrainerInitInput, TrainerWorker };

let hostGpus: HostGpus | undefined;
/** The host does not change while the lab runs: ask nvidia-smi once. */
export function thisHost(): HostGpus {
  hostGpus ??= detectHostGpus();
  return hostGpus;
}

export type ComposeOptions = {
  /** Resolves the recipe's relative paths (against the recipe file). */
  resolvePath: RecipePathResolver;
  /** The host's GPUs (detected once by default). */
  host?: HostGpus;
  /** Where api_key_env names are looked up (process.env by default). */
  env?: Readonly<Record<string, string | undefined>>;
  /** The folder of each worker's whole output (`<role>.log`); absent: only the workers panel's tail is kept. */
  workerLogDir?: string;
};

export function composeRun(recipe: Recipe, options: ComposeOptions): RunBackends {
  // A role that runs as a Ray job is placed by Ray on its nodes, not on this host.
  const localDevices = Object.fromEntries(Object.entries(recipe.devices).filter(([role]) => rayRoleOf(recipe, role as RoleName) === undefined));
  const reasons = [...devicePlacementProblems(localDevices, options.host ?? thisHost()), ...rayRunnerProblems(recipe)];
  const part = <T>(build: () => T): T | undefined => {
    try {
      return build();
    } catch (error) {
      if (!(error instanceof BackendUnavailableError)) throw error;
      reasons.push(...error.reasons);
      return undefined;
    }
  };
  const policy = part(() => policyBackend(recipe.policy, options.resolvePath, recipe.tasks, options.host ?? thisHost(), options.env));
  const trainer = part(() => trainerBackend(recipe));
  const students = part(() => studentBackend(recipe.student, options.env ? { env: options.env } : {}));
  if (!policy || !trainer || !students || reasons.length > 0) throw new BackendUnavailableError(reasons);
  return {
    policy,
    trainer,
    students,
    judge: () => createTurnJudge(recipe.judge, { seed: recipe.seed, ...(options.env ? { env: options.env } : {}) }),
    placement: (role) => {
      const runner = recipe.runner;
      const placed =
        runner !== 'local' && (role === 'trainer' || role === 'serving' || role === 'probe') && runner.roles[role]
          ? rayPlacement(runner, role, recipe.devices[role])
          : rolePlacement(recipe.devices[role]);
      return options.workerLogDir === undefined ? placed : { ...placed, logDir: options.workerLogDir };
    },
  };
}

/**
 * The serving part alone (`gatelab serve`): the policy's backend and where its
 * serving engine runs, the device checked against this host.
 */
export function composeServing(
  policy: Recipe['policy'],
  options: ComposeOptions & { device: WorkerDevice },
): { policy: PolicyBackend; placement: RolePlacement } {
  const reasons = devicePlacementProblems({ serving: options.device }, options.host ?? thisHost());
  if (reasons.length > 0) throw new BackendUnavailableError(reasons);
  return { policy: policyBackend(policy, options.resolvePath, undefined, options.host ?? thisHost(), options.env), placement: rolePlacement(options.device) };
}

/** Every reason the recipe cannot run on this host with this build; empty when it can. */
export function reasonsNotRunnable(recipe: Recipe, host: HostGpus): string[] {
  try {
    composeRun(recipe, { resolvePath: (p) => p, host });
    return [];
  } catch (error) {
    if (error instanceof BackendUnavailableError) return [...error.reasons];
    throw error;
  }
}

/** The recipe's trainer for one run folder: what its `init` carries, and its process, placed on the trainer's devices. */
export type RunTrainer = {
  readonly init: TrainerInitInput;
  createWorker(launch: Omit<TrainerLaunch, 'placement'>): TrainerWorker;
};

export function runTrainer(backends: RunBackends, recipe: Recipe, run: { modelDir: string; baseSha256: string; storeDir: string }): RunTrainer {
  const { trainer } = backends;
  return {
    init: trainerInitParams(recipe, { ...run, ...(trainer.maxTokensPerCall !== undefined ? { maxTokensPerCall: trainer.maxTokensPerCall } : {}) }),
    createWorker: (launch) => trainer.createWorker({ ...launch, placement: backends.placement('trainer') }),
  };
}
