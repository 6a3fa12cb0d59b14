/**
 * The composition root's policy part: `policy.kind` → the engines that serve
 * and probe the policy, the base model's identity, and the gateway's
 * tokenizer. One case per kind; a backend is one file under policies/.
 *
 * To add an engine backend: write policies/<kind>Policy.ts
 * returning a PolicyBackend — its `startEngine` gives an `EngineClient`
 * (src/core/protocols/engineProtocol.ts), for instance a supervised
 * process through `startRpcEngine` or an HTTP client of its server — and
 * replace the kind's case below.
 */
import type { EngineRole } from '../core/protocols/engineProtocol';
import type { Recipe } from '../core/recipe/recipeSchema';
import type { RolePlacement } from '../processes/devices/rolePlacement';
import type { GatewayTokenizer } from '../core/protocols/gatewayTokenizer';
import type { StartedEngine } from '../processes/rpcEngineClient';
import type { WorkerState } from '../processes/supervisedWorker';
import { embeddedPolicy } from './embedded/embeddedPolicy';
import { sglangPolicy } from './sglang/sglangPolicy';
import { vllmPolicy } from './vllm/vllmPolicy';
import type { HostGpus } from '../processes/devices/hostGpus';

export type EngineStart = {
  role: EngineRole;
  placement: RolePlacement;
  onLog?: (line: string, stream: 'stdout' | 'stderr') => void;
  onStateChange?: (state: WorkerState, detail?: string) => void;
};

export interface PolicyBackend {
  /** The base model's folder: config.json (the adapter spec's shapes) and whatever the trainer loads. */
  readonly modelDir: string;
  /** The base model's identity (sha256), read without starting an engine: what the run records and every candidate names. */
  baseSha256(): Promise<string>;
  /** Starts the engine of one role on the base model; resolves once it is loaded. */
  startEngine(start: EngineStart): Promise<StartedEngine>;
  /** The gateway's tokenizer in front of an engine of this policy. */
  gatewayTokenizer(engine: StartedEngine): GatewayTokenizer;
}

/** Resolves a path written in the recipe (relative to the recipe file). */
export type RecipePathResolver = (recipePath: string) => string;

/** `tasks`: the recipe's task source, when there is a recipe (a backend may refuse tasks its model cannot read). */
export function policyBackend(
  policy: Recipe['policy'],
  resolvePath: RecipePathResolver,
  tasks?: Recipe['tasks'],
  host?: HostGpus,
  env?: Readonly<Record<string, string | undefined>>,
): PolicyBackend {
  switch (policy.kind) {
    case 'embedded':
      return embeddedPolicy(resolvePath(policy.model_dir), tasks);
    case 'vllm':
      return vllmPolicy(policy, resolvePath, env ? { env } : {});
    case 'sglang':
      return sglangPolicy(policy, resolvePath, { ...(host ? { host } : {}), ...(env ? { env } : {}) });
    default: {
      const unknown: never = policy;
      throw new Error(`unknown policy kind ${JSON.stringify(unknown)}`);
    }
  }
}
