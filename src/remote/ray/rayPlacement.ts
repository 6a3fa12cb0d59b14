/**
 * Where a role runs under recipe `runner: ray`: the roles the runner names
 * are actors of the run's Ray job (rayJob.ts) with the resources the recipe
 * gives them; the others stay on this host. Ray, not the device map, picks
 * an actor's GPUs on its node and sets CUDA_VISIBLE_DEVICES; the device
 * map's GPU count is the default for `num_gpus`.
 */
import type { RayRunner, Recipe, WorkerDevice } from '../../core/recipe/recipeSchema';
import { gpusOf, niceOf, threadsEnvOf, type RoleName, type RolePlacement } from '../../processes/devices/rolePlacement';
import type { WorkerEntry } from '../../processes/workerEntry';
import type { LaunchOptions, WorkerLauncher } from '../../processes/workerProcess';
import { rayJobOf, type ActorOptions } from './rayJob';
import { RayRoleProcess } from './rayRole';
import { rayServerHost } from './rayServerHost';
import { trainerWeights } from './trainerWeights';
import { engineWeights } from './engineWeights';

/** The roles that can run on Ray. */
export type RayRoleName = keyof RayRunner['roles'];

export function rayRoleOf(recipe: Recipe, role: RoleName): RayRunner['roles'][RayRoleName] | undefined {
  if (recipe.runner === 'local') return undefined;
  return role === 'trainer' || role === 'serving' || role === 'probe' ? recipe.runner.roles[role] : undefined;
}

/**
 * Why the recipe's Ray roles cannot run with this build; empty when they can.
 * `refusal` says, from the backend registry, why the backend that fills a
 * role cannot be a Ray actor (undefined: it can).
 */
export function rayRunnerProblems(recipe: Recipe, refusal: (role: RayRoleName) => string | undefined): string[] {
  if (recipe.runner === 'local') return [];
  const problems: string[] = [];
  for (const role of ['trainer', 'serving', 'probe'] as const) {
    const why = recipe.runner.roles[role] ? refusal(role) : undefined;
    if (why !== undefined) problems.push(`runner.roles.${role}: ${why}; run ${role} on this host`);
  }
  return problems;
}

/** The command a worker entry runs on a node: always JSON lines on stdin/stdout. */
function remoteCommand(entry: WorkerEntry): { argv: string[]; env: Record<string, string> } {
  // Electron's own binary acts as plain Node when asked to.
  if (entry.kind === 'utility') return { argv: [process.execPath, entry.modulePath, ...entry.args], env: { ELECTRON_RUN_AS_NODE: '1' } };
  return { argv: [entry.command, ...entry.args], env: { ...entry.env } };
}

export function rayPlacement(runner: RayRunner, role: RayRoleName, device: WorkerDevice): RolePlacement {
  const settings = runner.roles[role];
  if (!settings) throw new Error(`role ${role} is not a Ray role`);
  const numGpus = settings.num_gpus ?? gpusOf(device).length;
  const actor: ActorOptions = {
    num_cpus: settings.num_cpus,
    ...(numGpus > 0 ? { num_gpus: numGpus } : {}),
    ...(settings.memory !== undefined ? { memory: settings.memory } : {}),
    // Ray gives every node the resource node:<ip>: asking for a sliver of it places the actor there.
    ...(settings.node !== undefined ? { resources: { [`node:${settings.node}`]: 0.001 } } : {}),
  };
  const job = rayJobOf(runner, { address: runner.address, python: runner.python, control: runner.control, env: runner.env });
  const launch = { job, control: runner.control, actor };
  const launcher: WorkerLauncher = (entry: WorkerEntry, options: LaunchOptions) => {
    const { argv, env } = remoteCommand(entry);
    const spec = { name: options.name, argv, env: { ...env, ...(options.env ?? {}) }, mode: 'jsonl' as const };
    return new RayRoleProcess({ ...launch, hooks: role === 'trainer' ? trainerWeights() : engineWeights() }, spec, options);
  };
  return {
    // Ray sets CUDA_VISIBLE_DEVICES for an actor that reserves GPUs; one that reserves none sees none.
    env: {
      CUDA_DEVICE_ORDER: 'PCI_BUS_ID',
      ...(numGpus === 0 ? { CUDA_VISIBLE_DEVICES: '' } : {}),
      // The supervisor cannot renice a process on another machine: the actor starts it at this nice value.
      ...(niceOf(device) > 0 ? { GATELAB_WORKER_NICE: String(niceOf(device)) } : {}),
      ...threadsEnvOf(device),
    },
    nice: 0,
    gpus: [],
    remoteGpuCount: numGpus,
    launch: launcher,
    // An engine that is an HTTP server (vLLM): its actor runs it in server mode, and its port is tunnelled here.
    ...(role === 'trainer' ? {} : { serverHost: () => rayServerHost(launch) }),
  };
}
