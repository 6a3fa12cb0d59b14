// The processes and servers a run holds while it is open: the probe engine
// always (the gate's), and for a run that runs sessions the serving engine
// (loaded with exactly the pointer's version), the gateway in front of it and
// the trainer feed. They start side by side where they can; a failure closes
// whatever did start.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { EngineProbeSampler } from '../core/gate/probeRunner';
import { replyCriterion } from '../core/preference/replyCriterion';
import type { ReleaseGate } from '../core/gate/releaseGate';
import type { RunJournal } from '../core/journal/runJournal';
import type { GatewayTokenizer } from '../core/protocols/gatewayTokenizer';
import type { Recipe } from '../core/recipe/recipeSchema';
import type { RunTasks } from './runTasks';
import type { StartedEngine } from '../processes/rpcEngineClient';
import { startGateway, type Gateway } from '../surfaces/gateway/gatewayServer';
import { runTrainer, type RunBackends } from './composeRun';
import { ServingState } from './servingState';
import { completedSamples } from './sessionFiles';
import { TrainerFeed } from './trainerFeed';

/** What serves while the run's sessions run. */
export type ServingParts = {
  token: string;
  serving: StartedEngine;
  servingState: ServingState;
  gateway: Gateway;
  tokenizer: GatewayTokenizer;
  feed: TrainerFeed;
};
/** `live` is absent on a run opened for its gate only. */
export type RunParts = { probe: StartedEngine; live: ServingParts | undefined };

export type RunPartsInput = {
  runDir: string;
  recipe: Recipe;
  journal: RunJournal;
  gate: ReleaseGate;
  tasks: RunTasks;
  backends: RunBackends;
  /** The base the run started on (run-started): every engine must have loaded it. */
  baseSha256: string;
  /** Only the gate and its probe engine (a person's decision on a run no process runs). */
  gateOnly: boolean;
  onLog: ((line: string) => void) | undefined;
  /** A failure of the trainer feed the run must stop on. */
  onFatal: (error: Error) => void;
};

/** Starts the run's engines (and, for sessions, its gateway and trainer feed) and attaches them to the gate. */
export async function startRunParts(input: RunPartsInput): Promise<RunParts> {
  const { backends, gate, recipe, onLog: log } = input;
  const { policy, placement } = backends;
  const engineLog = (role: string) => (log ? { onLog: (l: string) => log(`${role} engine: ${l}`) } : {});
  // The engines start side by side (each loads and hash-checks the model).
  const started = await Promise.allSettled([
    policy.startEngine({ role: 'probe', placement: placement('probe'), ...engineLog('probe') }),
    input.gateOnly ? Promise.resolve(undefined) : policy.startEngine({ role: 'serving', placement: placement('serving'), ...engineLog('serving') }),
  ]);
  const probe = started[0].status === 'fulfilled' ? started[0].value : undefined;
  const serving = started[1].status === 'fulfilled' ? started[1].value : undefined;
  let gateway: Gateway | undefined;
  try {
    for (const s of started) if (s.status === 'rejected') throw s.reason;
    for (const engine of [probe, serving]) {
      if (engine && engine.info.baseSha256 !== input.baseSha256) {
        throw new Error(`the policy at ${policy.modelDir} (base ${engine.info.baseSha256.slice(0, 12)}…) is not the one this run started on`);
      }
    }
    const sampler = new EngineProbeSampler(probe!.client, input.tasks.probe, recipe.gate.probe.sampling, replyCriterion(recipe.preference));
    if (input.gateOnly || !serving) {
      gate.attach({ probe: sampler });
      gate.kick();
      return { probe: probe!, live: undefined };
    }
    // Serving loads exactly the pointer's version, hash-checked by the engine.
    const pointer = gate.pointer;
    const loaded = await serving.client.setAdapter(gate.adapterRef(pointer));
    const servingState = new ServingState(serving.client, { version: loaded, sha256: pointer.sha256 }, serving.info.baseSha256);
    const token = randomBytes(24).toString('base64url');
    const tokenizer = policy.gatewayTokenizer(serving);
    gateway = await startGateway({ engine: serving.client, serving: servingState, tokenizer, token, turnLogTopK: recipe.policy.logprobs_top_k });
    gate.attach({ probe: sampler, serving: servingState });
    const feed = new TrainerFeed({
      runDir: input.runDir,
      journal: input.journal,
      gate,
      recipe,
      baseSha256: input.baseSha256,
      trainer: runTrainer(backends, recipe, { modelDir: policy.modelDir, baseSha256: input.baseSha256, storeDir: path.join(input.runDir, 'weights') }),
      samples: await completedSamples(input.runDir, input.journal.events),
      ...(log ? { onLog: log } : {}),
      onFatal: input.onFatal,
    });
    // The trainer loads while the first sessions run; it is needed only once a batch is full.
    feed.start().catch((e: unknown) => input.onFatal(e as Error));
    gate.kick();
    return { probe: probe!, live: { token, serving, servingState, gateway, tokenizer, feed } };
  } catch (error) {
    await gateway?.close().catch(() => undefined);
    await serving?.client.close().catch(() => undefined);
    await probe?.client.close().catch(() => undefined);
    throw error;
  }
}

/** Closes the parts in the order that loses nothing: the trainer's step in flight first, the gate, then what serves. */
export async function closeRunParts(parts: RunParts, gate: ReleaseGate, onLog: ((line: string) => void) | undefined): Promise<void> {
  await parts.live?.feed.close().catch((e: unknown) => onLog?.(`trainer: ${(e as Error).message}`));
  await gate.close();
  await parts.live?.gateway.close();
  await parts.probe.client.close();
  await parts.live?.serving.client.close();
}
