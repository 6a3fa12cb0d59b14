/**
 * Where a role runs under recipe `runner: ray`: the roles the runner names
 * are Ray actors (rayJobWorker.ts) with the resources the recipe gives them;
 * the others stay on this host. Ray, not the device map, picks an actor's
 * GPUs on its node and sets CUDA_VISIBLE_DEVICES; the device map's GPU count
 * is the default for `num_gpus`.
 */
import type { RayRunner, Recipe, WorkerDevice } from '../../core/recipe/recipeSchema';
import { gpusOf, niceOf, threadsEnvOf, type RoleName, type RolePlacement } from '../../processes/devices/rolePlacement';
import { trainerWeightSync } from '../trainerWeightSync';
import { engineAdapterSync } from '../engineAdapterSync';
import { remoteServerHost } from '../remoteServerHost';
import { rayJobLauncher, submitRayJob, type RayJobLaunch } from './rayJobWorker';

/** The roles that can run as Ray jobs, and which of them this build can move weights for. */
export type RayRoleName = keyof RayRunner['roles'];

export function rayRoleOf(recipe: Recipe, role: RoleName): RayRunner['roles'][RayRoleName] | undefined {
  if (recipe.runner === 'local') return undefined;
  return role === 'trainer' || role === 'serving' || role === 'probe' ? recipe.runner.roles[role] : undefined;
}

/**
 * Why the recipe's Ray roles cannot run with this build; empty when they can.
 * `refusal` says, from the backend registry, why the backend that fills a
 * role cannot be a Ray job (undefined: it can). The embedded engine is a
 * JSON-lines worker and a vLLM server is tunnelled (remoteServerHost.ts).
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

export function rayPlacement(runner: RayRunner, role: RayRoleName, device: WorkerDevice): RolePlacement {
  const settings = runner.roles[role];
  if (!settings) throw new Error(`role ${role} is not a Ray role`);
  const gpus = gpusOf(device);
  const numGpus = settings.num_gpus ?? gpus.length;
  const jobLaunch: RayJobLaunch = {
    address: runner.address,
    python: runner.python,
    control: {
      bind: runner.control.bind,
      port: runner.control.port,
      ...(runner.control.advertise !== undefined ? { advertise: runner.control.advertise } : {}),
    },
    role,
    actor: {
      num_cpus: settings.num_cpus,
      ...(numGpus > 0 ? { num_gpus: numGpus } : {}),
      ...(settings.memory !== undefined ? { memory: settings.memory } : {}),
      // Ray gives every node the resource node:<ip>: asking for a sliver of it places the actor there.
      ...(settings.node !== undefined ? { resources: { [`node:${settings.node}`]: 0.001 } } : {}),
    },
    env: runner.env,
    hooks: role === 'trainer' ? trainerWeightSync : engineAdapterSync,
  };
  return {
    // Ray sets CUDA_VISIBLE_DEVICES for a job that reserves GPUs; one that reserves none sees none.
    env: {
      CUDA_DEVICE_ORDER: 'PCI_BUS_ID',
      ...(numGpus === 0 ? { CUDA_VISIBLE_DEVICES: '' } : {}),
      // The supervisor cannot renice a process on another machine: the connector starts it at this nice value.
      ...(niceOf(device) > 0 ? { GATELAB_WORKER_NICE: String(niceOf(device)) } : {}),
      ...threadsEnvOf(device),
    },
    nice: 0,
    gpus: [],
    remoteGpuCount: numGpus,
    launch: rayJobLauncher(jobLaunch),
    // An engine that is an HTTP server (vLLM): the connector runs it in server mode and tunnels its port here.
    ...(role === 'trainer' ? {} : { serverHost: () => remoteServerHost((entry, options, tunnel) => submitRayJob(jobLaunch, entry, options, tunnel)) }),
  };
}
