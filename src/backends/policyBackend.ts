/**
 * What the lab uses of a policy: the engines that serve and probe it, the
 * base model's identity, and the gateway's tokenizer. A policy backend is
 * the `policy` part of a backend folder's descriptor (backendDescriptor.ts,
 * registry.ts); see src/backends/README.md for adding one.
 */
import type { EngineRole } from '../core/protocols/engineProtocol';
import type { RolePlacement } from '../processes/devices/rolePlacement';
import type { GatewayTokenizer } from '../core/protocols/gatewayTokenizer';
import type { StartedEngine } from '../processes/rpcEngineClient';
import type { WorkerState } from '../processes/supervisedWorker';

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
