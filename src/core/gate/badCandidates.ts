// Deliberately bad candidates, injected to show the gate stops them. Each is
// written to the run's weight store and then staged like a trainer's
// candidate, so it meets exactly the gate every candidate meets — and must
// end rejected with the serving pointer unchanged.
//
//   random-noise     Gaussian A and B at twice the update-norm bound: random
//                    weights of a size no trainer step reaches. (Measured on
//                    the embedded policy: noise *within* the bound leaves the
//                    replies answered and only blurs them, so the bound is what
//                    stops random weights, before any probe.)
//   reward-inverted  trained by real gradient steps toward markdown (the PRM's
//                    reward flipped); well-formed, only the probes can catch it
//   collapsed        trained toward ending every reply at once (empty replies,
//                    Reef's post-adaptation collapse)
//   nan-inf          a healthy adapter with NaN and ±Inf among its values
//   wrong-shape      a healthy adapter with one factor of the wrong rank
//   corrupted-bytes  a healthy adapter whose bytes were damaged after its
//                    manifest recorded their hash
//
// Model-agnostic: the four structural kinds are made here from the adapter
// spec alone (in the recipe's dtype); the two trained kinds are made by the
// run's own trainer through the trainer protocol (`badCandidate`), with the
// reward-inverted rollouts sampled on the probe engine through the engine
// protocol — so injection works for whatever backends the recipe chose.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { towardWorseRewards } from '../judge/badnessRewards';
import { replyCriterion } from '../preference/replyCriterion';
import type { CandidateSource } from '../journal/journalEvents';
import type { BadCandidateKind } from './candidateVocabulary';
import type { EngineClient, GenerateResult } from '../protocols/engineProtocol';
import type { BadCandidateParams, TrainerCaller } from '../protocols/trainerProtocol';
import type { Recipe } from '../recipe/recipeSchema';
import { createRng, rolloutSeed, type Rng } from '../tasks/rng';
import type { Task } from '../tasks/task';
import { loraModuleFromPeft, type AdapterTensorSpec, type LoraSettings } from '../weights/adapterSpec';
import { peftAdapterConfig, peftAdapterMetadata } from '../weights/peftAdapterFormat';
import { serializeSafetensors, type WritableTensor } from '../weights/safetensors';
import { WeightStore, type StoredCandidate } from '../weights/weightStore';

export type BadCandidateContext = {
  runDir: string;
  recipe: Recipe;
  /** The base model's folder (written into adapter_config.json as base_model_name_or_path). */
  modelDir: string;
  /** The adapter spec verify checks against (names, shapes, the recipe's dtype). */
  spec: readonly AdapterTensorSpec[];
  /** Homework tasks to train the trained kinds on (never the probe set). */
  tasks: readonly Task[];
  /** An engine that is not the serving one, for the reward-inverted rollouts (the probe engine). */
  rolloutEngine: EngineClient;
  /** Runs `use` with the run's trainer process (starting one when the run has none), asked through the trainer protocol. */
  withTrainer: <T>(use: (trainer: TrainerCaller) => Promise<T>) => Promise<T>;
  seed: number;
  /** The base model's sha256 (the run's run-started event). */
  baseSha256: string;
};

/** What `ReleaseGate.stage` takes. */
export type StagedBadCandidate = { version: string; sha256: string; blob: string; source: CandidateSource };

function loraSettings(recipe: Recipe): LoraSettings {
  const l = recipe.trainer.lora;
  return { rank: l.rank, alpha: l.alpha, targets: l.target_modules.map(loraModuleFromPeft), dtype: l.dtype };
}

function gaussian(rng: Rng): number {
  // Box–Muller; 1 − next() keeps the logarithm finite.
  return Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
}

/** Seeded Gaussian factors, every value times `std`, in the spec's dtype. */
function randomTensors(spec: readonly AdapterTensorSpec[], rng: Rng, std: number): Map<string, WritableTensor & { data: Float32Array }> {
  return new Map(
    spec.map((s) => {
      const data = new Float32Array(s.shape[0] * s.shape[1]);
      for (let i = 0; i < data.length; i++) data[i] = gaussian(rng) * std;
      return [s.name, { shape: s.shape, data, dtype: s.dtype }];
    }),
  );
}

/**
 * Expected ‖scale·B·A‖_F² for Gaussian factors of std σ: per module
 * scale²·σ⁴·r·in·out, so σ follows from the wanted norm.
 */
function noiseStd(spec: readonly AdapterTensorSpec[], scale: number, norm: number): number {
  let perSigma4 = 0;
  for (const s of spec)
    if (s.part === 'A') {
      const out = spec.find((b) => b.layer === s.layer && b.module === s.module && b.part === 'B')!.shape[0];
      perSigma4 += scale * scale * s.shape[0] * s.shape[1] * out;
    }
  return Math.pow((norm * norm) / perSigma4, 0.25);
}

async function putInjected(ctx: BadCandidateContext, blob: Uint8Array, note: string, baseSha256: string): Promise<StoredCandidate> {
  const store = new WeightStore(path.join(ctx.runDir, 'weights'));
  const settings = loraSettings(ctx.recipe);
  return store.put({
    blob,
    adapterConfig: peftAdapterConfig(settings, ctx.modelDir),
    manifest: {
      kind: 'injected',
      note,
      baseModelSha256: baseSha256,
      step: 0,
      dataRange: { sessions: [], turns: 0 },
      loss: null,
      lora: { rank: settings.rank, alpha: settings.alpha, targets: [...ctx.recipe.trainer.lora.target_modules] },
    },
  });
}

/** The store's manifest is the candidate's manifest: its version and the hash it claims. */
function staged(ctx: BadCandidateContext, stored: StoredCandidate, kind: BadCandidateKind): StagedBadCandidate {
  return {
    version: stored.version,
    sha256: stored.sha256,
    blob: path.relative(ctx.runDir, stored.path),
    source: { kind: 'inject', badKind: kind },
  };
}

/** Builds a bad candidate of the given kind in the run's store; ready to stage. */
export async function makeBadCandidate(kind: BadCandidateKind, ctx: BadCandidateContext): Promise<StagedBadCandidate> {
  const rng = createRng(ctx.seed);
  const metadata = peftAdapterMetadata(loraSettings(ctx.recipe));
  const base = ctx.baseSha256;
  // A healthy-looking small adapter: the starting point of the structural kinds.
  const healthy = () => randomTensors(ctx.spec, rng, 1e-3);
  switch (kind) {
    case 'random-noise': {
      const scale = ctx.recipe.trainer.lora.alpha / ctx.recipe.trainer.lora.rank;
      const std = noiseStd(ctx.spec, scale, 2 * ctx.recipe.gate.max_update_norm);
      const stored = await putInjected(
        ctx,
        serializeSafetensors(randomTensors(ctx.spec, rng, std), metadata),
        `random-noise: Gaussian factors, update norm ≈ 2 × the bound`,
        base,
      );
      return staged(ctx, stored, kind);
    }
    case 'nan-inf': {
      const tensors = healthy();
      const first = tensors.get(ctx.spec[0]!.name)!;
      first.data[0] = Number.NaN;
      first.data[1] = Number.POSITIVE_INFINITY;
      first.data[2] = Number.NEGATIVE_INFINITY;
      return staged(ctx, await putInjected(ctx, serializeSafetensors(tensors, metadata), 'nan-inf: NaN and ±Inf among the values', base), kind);
    }
    case 'wrong-shape': {
      const tensors = healthy();
      const s = ctx.spec.find((x) => x.part === 'A')!;
      tensors.set(s.name, { shape: [s.shape[0] + 1, s.shape[1]], data: new Float32Array((s.shape[0] + 1) * s.shape[1]).fill(1e-3), dtype: s.dtype });
      return staged(ctx, await putInjected(ctx, serializeSafetensors(tensors, metadata), `wrong-shape: ${s.name} has rank ${s.shape[0] + 1}`, base), kind);
    }
    case 'corrupted-bytes': {
      const bytes = serializeSafetensors(healthy(), metadata);
      const stored = await putInjected(ctx, bytes, 'corrupted-bytes: bytes damaged after the manifest recorded their hash', base);
      // Damage the stored blob in place (bit rot, a bad copy): the manifest still names the old hash.
      const damaged = bytes.slice();
      for (let i = damaged.length - 64; i < damaged.length; i += 8) damaged[i] = (damaged[i] ?? 0) ^ 0x5a;
      await writeFile(stored.path, damaged);
      return staged(ctx, stored, kind);
    }
    case 'reward-inverted':
      return staged(ctx, await ctx.withTrainer((trainer) => rewardInverted(trainer, ctx)), kind);
    case 'collapsed':
      return staged(ctx, await ctx.withTrainer((trainer) => collapsed(trainer, ctx)), kind);
    default: {
      const unknown: never = kind;
      throw new Error(`unknown bad-candidate kind ${String(unknown)}`);
    }
  }
}

/** How many on-policy rounds the reward-inverted kind takes, each rolling out this many first replies (what moved the embedded policy to markdown). */
const REWARD_INVERTED_ROUNDS = 4;
const REWARD_INVERTED_BATCH = 8;
/** The collapsed kind trains on the first replies to this many homework tasks. */
const COLLAPSED_PROMPTS = 8;

function samplingOf(recipe: Recipe) {
  const s = recipe.policy.sampling;
  return { temperature: s.temperature, topP: s.top_p, topK: s.top_k, maxTokens: s.max_tokens };
}

/**
 * On-policy rounds toward markdown (or toward breaking a stated preference): each round loads the adapter so far into
 * the rollout engine (the probe engine: a candidate never reaches the serving one before promotion),
 * samples first replies to homework tasks, rewards each reply by its markdown
 * against the batch's mean, and has the trainer take one step on them; the
 * last round's adapter is stored as the candidate.
 */
async function rewardInverted(trainer: TrainerCaller, ctx: BadCandidateContext): Promise<StoredCandidate> {
  if (ctx.tasks.length === 0) throw new Error('reward-inverted: no homework tasks to roll out on');
  // Toward what the run's criterion punishes (docs/design.md, Injected bad candidates), relative to the batch's mean.
  const criterion = replyCriterion(ctx.recipe.preference);
  const note = `reward-inverted: trained toward ${criterion.punishes} (more of it rewarded, less punished)`;
  let current: { version: string; sha256: string; path: string } | null = null;
  for (let round = 1; round <= REWARD_INVERTED_ROUNDS; round += 1) {
    await ctx.rolloutEngine.setAdapter(current);
    const picked = Array.from({ length: REWARD_INVERTED_BATCH }, (_, i) => ctx.tasks[((round - 1) * REWARD_INVERTED_BATCH + i) % ctx.tasks.length] as Task);
    // All at once: the engine batches concurrent requests.
    const replies: GenerateResult[] = await Promise.all(
      picked.map((task, i) =>
        ctx.rolloutEngine.generate({
          messages: [{ role: 'user', content: task.firstMessage }],
          sampling: samplingOf(ctx.recipe),
          seed: rolloutSeed(ctx.seed, round, i),
          logprobsTopK: ctx.recipe.policy.logprobs_top_k,
        }),
      ),
    );
    const rewards = towardWorseRewards(replies.map((r, i) => criterion.badness(r.text, picked[i] as Task)));
    const samples = replies.flatMap((reply, i) => {
      const reward = rewards[i] as number;
      // At the mean (0) a reply carries no signal; an all-forced reply has no token to train.
      if (reward === 0 || reply.tokenIds.length === 0 || (reply.forced?.every(Boolean) ?? false)) return [];
      const task = picked[i] as Task;
      return [
        {
          sessionId: task.id,
          turn: 0,
          messages: [{ role: 'user' as const, content: task.firstMessage }],
          ...(reply.promptIds !== undefined ? { promptIds: reply.promptIds } : {}),
          responseIds: reply.tokenIds,
          logprobs: reply.logprobs,
          topIds: reply.topIds,
          topLogprobs: reply.topLogprobs,
          ...(reply.forced !== undefined ? { forced: reply.forced } : {}),
          reward,
        },
      ];
    });
    // Fail closed: an adapter that stopped short is not the bad candidate it claims to be.
    if (samples.length === 0) throw new Error(`reward-inverted: round ${round} had no reply to train toward ${criterion.punishes}`);
    const params: BadCandidateParams = { kind: 'reward-inverted', seed: ctx.seed, round, rounds: REWARD_INVERTED_ROUNDS, samples, note };
    const result = await trainer.call('badCandidate', params, { timeoutMs: 600_000 });
    if (result.stored !== (round === REWARD_INVERTED_ROUNDS)) throw new Error(`reward-inverted: round ${round} answered stored=${result.stored}`);
    current = result.adapter;
  }
  return storedByTrainer(ctx, current);
}

/** Training toward ending every reply at once, by the trainer alone, under 0.9 × the gate's norm bound (the probes must catch the collapse). */
async function collapsed(trainer: TrainerCaller, ctx: BadCandidateContext): Promise<StoredCandidate> {
  const params: BadCandidateParams = {
    kind: 'collapsed',
    seed: ctx.seed,
    prompts: ctx.tasks.slice(0, COLLAPSED_PROMPTS).map((task) => [{ role: 'user', content: task.firstMessage }]),
    maxUpdateNorm: 0.9 * ctx.recipe.gate.max_update_norm,
    note: 'collapsed: trained to answer every homework with the end-of-turn token at once',
  };
  if (params.prompts.length === 0) throw new Error('collapsed: no homework tasks to train on');
  const result = await trainer.call('badCandidate', params, { timeoutMs: 600_000 });
  if (!result.stored) throw new Error('collapsed: the trainer answered a scratch adapter, not a stored candidate');
  return storedByTrainer(ctx, result.adapter);
}

/** What another process says it stored, read back from the store (complete, the same bytes, kind injected). */
async function storedByTrainer(ctx: BadCandidateContext, adapter: { version: string; sha256: string } | null): Promise<StoredCandidate> {
  if (adapter === null) throw new Error('the trainer stored no candidate');
  const stored = await new WeightStore(path.join(ctx.runDir, 'weights')).get(adapter.version);
  if (stored.sha256 !== adapter.sha256 || stored.manifest.kind !== 'injected') {
    throw new Error(
      `the trainer's ${adapter.version} is not the injected candidate it claims (store: ${stored.sha256.slice(0, 12)}…, ${stored.manifest.kind})`,
    );
  }
  return stored;
}
