/**
 * The composition root: the one place that turns a recipe into the parts of
 * a run — `policy.kind` → serving and probe engines and the gateway's
 * tokenizer, `trainer.kind` → the trainer process, `student.kind` → the
 * student, each from the backend registry (src/backends/registry.ts); the
 * judges as the recipe says; and each role placed on its devices.
 * `gatelab run`, the desktop and `gatelab serve` all build their parts here;
 * nothing else in the lab names a backend.
 *
 * A recipe this build or this host cannot run is refused with every reason
 * at once (BackendUnavailableError), before anything starts: a backend
 * section its kind's schema refuses, a role whose GPUs the host lacks, a
 * role on the CPU whose backend needs a GPU, a Ray role whose backend cannot
 * be a Ray job, a trainer that cannot train the policy's model, and what
 * each backend's factory refuses (its Python environment, its model).
 */
import { createTurnJudge } from '../core/judge/createTurnJudge';
import { describeIssue } from '../core/recipe/loadRecipe';
import type { TurnJudge } from '../core/judge/turnJudge';
import type { StudentFactory } from '../core/protocols/studentProtocol';
import type { PolicySection, Recipe, WorkerDevice } from '../core/recipe/recipeSchema';
import { detectHostGpus, type HostGpus } from '../processes/devices/hostGpus';
import { devicePlacementProblems, gpusOf, rolePlacement, type RoleName, type RolePlacement } from '../processes/devices/rolePlacement';
import type { BackendRole, PlacementNeeds } from '../backends/backendDescriptor';
import { BackendUnavailableError } from '../backends/backendUnavailable';
import type { PolicyBackend, RecipePathResolver } from '../backends/policyBackend';
import { backendRegistry, backendRoleWords, type BackendRegistry } from '../backends/registry';
import type { TrainerBackend, TrainerLaunch, TrainerWorker } from '../backends/trainerBackend';
import { trainerInitParams, type TrainerInitInput } from '../backends/trainerInitParams';
import { rayPlacement, rayRoleOf, rayRunnerProblems } from '../remote/ray/rayPlacement';
import { checkRecipe } from './recipeSchemas';

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
  /** Where api_key_env names, GATELAB_HOME and interpreter variables are looked up (process.env by default). */
  env?: Readonly<Record<string, string | undefined>>;
  /** The folder of each worker's whole output (`<role>.log`); absent: only the workers panel's tail is kept. */
  workerLogDir?: string;
  /** The backends to build from (this build's registry by default). */
  registry?: BackendRegistry;
};

/** The device-map roles whose processes each backend role starts. */
const DEVICE_ROLES: Record<BackendRole, readonly RoleName[]> = { policy: ['serving', 'probe'], trainer: ['trainer'], student: ['student'] };

/** Each role the device map puts on the CPU although its backend needs a GPU. */
function gpuNeedProblems(recipe: Recipe, role: BackendRole, needs: PlacementNeeds): string[] {
  if (needs.gpu !== 'required') return [];
  const kind = recipe[role].kind;
  return DEVICE_ROLES[role]
    .filter((deviceRole) => rayRoleOf(recipe, deviceRole) === undefined && gpusOf(recipe.devices[deviceRole]).length === 0)
    .map((deviceRole) => `role ${deviceRole} is on the CPU, and the ${backendRoleWords[role]} '${kind}' needs a GPU: give it one in devices`);
}

export function composeRun(input: Recipe, options: ComposeOptions): RunBackends {
  const registry = options.registry ?? backendRegistry;
  const host = options.host ?? thisHost();
  // The backend sections checked by their kinds' own schemas, whichever way the recipe was read.
  const checked = checkRecipe(input, registry);
  if ('problems' in checked) throw new BackendUnavailableError(checked.problems);
  const { recipe } = checked;
  const policyPart = registry.part('policy', recipe.policy.kind);
  const trainerPart = registry.part('trainer', recipe.trainer.kind);
  const studentPart = registry.part('student', recipe.student.kind);
  // checkRecipe holds every kind to the registered ones.
  if (!policyPart || !trainerPart || !studentPart) throw new Error('a checked recipe names a backend kind the registry lacks');

  // A role that runs as a Ray job is placed by Ray on its nodes, not on this host.
  const localDevices = Object.fromEntries(Object.entries(recipe.devices).filter(([role]) => rayRoleOf(recipe, role as RoleName) === undefined));
  const rayRefusal = (needs: PlacementNeeds) => (needs.rayJob === true ? undefined : needs.rayJob.refused);
  const reasons = [
    ...devicePlacementProblems(localDevices, host),
    ...rayRunnerProblems(recipe, (role) => rayRefusal(role === 'trainer' ? trainerPart.placement : policyPart.placement)),
    ...gpuNeedProblems(recipe, 'policy', policyPart.placement),
    ...gpuNeedProblems(recipe, 'trainer', trainerPart.placement),
    ...gpuNeedProblems(recipe, 'student', studentPart.placement),
  ];
  if (!trainerPart.trains.includes(policyPart.modelFormat)) {
    const able = registry.kinds('trainer').filter((kind) => registry.part('trainer', kind)?.trains.includes(policyPart.modelFormat));
    reasons.push(
      `the trainer '${recipe.trainer.kind}' trains ${trainerPart.trains.join(' or ')} models; the policy engine '${recipe.policy.kind}' serves a model in the ${policyPart.modelFormat} format` +
        (able.length > 0 ? ` (trainer kind ${able.map((k) => `'${k}'`).join(' or ')} trains it)` : ''),
    );
  }
  const part = <T>(build: () => T): T | undefined => {
    try {
      return build();
    } catch (error) {
      if (!(error instanceof BackendUnavailableError)) throw error;
      reasons.push(...error.reasons);
      return undefined;
    }
  };
  const env = options.env ? { env: options.env } : {};
  const policy = part(() => policyPart.create(recipe.policy, { resolvePath: options.resolvePath, tasks: recipe.tasks, host, ...env }));
  const trainer = part(() => trainerPart.create(recipe.trainer, { recipe, ...env }));
  const students = part(() => studentPart.create(recipe.student, { ...env, ...(recipe.preference ? { preference: recipe.preference } : {}) }));
  if (!policy || !trainer || !students || reasons.length > 0) throw new BackendUnavailableError(reasons);
  return {
    policy,
    trainer,
    students,
    judge: () => createTurnJudge(recipe.judge, { seed: recipe.seed, ...env }),
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
export function composeServing(policy: PolicySection, options: ComposeOptions & { device: WorkerDevice }): { policy: PolicyBackend; placement: RolePlacement } {
  const registry = options.registry ?? backendRegistry;
  const host = options.host ?? thisHost();
  const reasons = devicePlacementProblems({ serving: options.device }, host);
  const policyPart = registry.part('policy', policy.kind);
  if (!policyPart) {
    reasons.push(
      `this build has no policy engine of kind '${policy.kind}' (it has ${registry
        .kinds('policy')
        .map((k) => `'${k}'`)
        .join(', ')})`,
    );
  } else {
    const section = policyPart.section.safeParse(policy);
    if (!section.success) {
      reasons.push(
        ...section.error.issues.map((issue) => {
          const { field, message } = describeIssue(issue);
          return `policy${field ? `.${field}` : ''}: ${message}`;
        }),
      );
    }
    if (policyPart.placement.gpu === 'required' && gpusOf(options.device).length === 0) {
      reasons.push(`the serving role is on the CPU, and the policy engine '${policy.kind}' needs a GPU`);
    }
  }
  if (!policyPart || reasons.length > 0) throw new BackendUnavailableError(reasons);
  const backend = policyPart.create(policy, { resolvePath: options.resolvePath, host, ...(options.env ? { env: options.env } : {}) });
  return { policy: backend, placement: rolePlacement(options.device) };
}

/** Every reason the recipe cannot run on this host with this build; empty when it can. */
export function reasonsNotRunnable(recipe: Recipe, host: HostGpus, registry?: BackendRegistry): string[] {
  try {
    composeRun(recipe, { resolvePath: (p) => p, host, ...(registry ? { registry } : {}) });
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
