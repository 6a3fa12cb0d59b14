// Deliberately bad candidates (DESIGN §4 bad-candidate injection). Each is
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
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { BadCandidateKind, CandidateSource } from '../journal/journalEvents';
import type { Recipe } from '../recipe/recipeSchema';
import { createRng, type Rng } from '../tasks/rng';
import type { Task } from '../tasks/task';
import type { EngineClient } from '../serving/engineClient';
import { loraModuleFromPeft, type AdapterTensorSpec, type LoraSettings } from '../weights/adapterSpec';
import { serializeSafetensors, type Float32Tensor } from '../weights/safetensors';
import { WeightStore, type StoredCandidate } from '../weights/weightStore';
import { createTurnJudge } from '../judge/createTurnJudge';
import { Tokenizer } from '../../workers/embedded/tokenizer';
import { DEFAULT_ADAMW } from '../../workers/embedded/trainer/adamw';
import { CandidateTrainer } from '../../workers/embedded/trainer/candidateTrainer';
import { LoraParams } from '../../workers/embedded/trainer/loraParams';
import { LoraTrainer } from '../../workers/embedded/trainer/loraTrainer';
import { DEFAULT_OBJECTIVE } from '../../workers/embedded/trainer/objective';
import { trainRewardInvertedAdapter } from '../../workers/embedded/trainer/rewardInverted';
import { loadTrainerModel, type TrainerModel } from '../../workers/embedded/trainer/trainerModel';
import { peftAdapterMetadata, serializePeftAdapter } from '../../workers/embedded/trainer/peftAdapter';
import { sha256Hex, verifyCandidateBytes } from './verifyCandidate';
import type { TrainSample } from '../../workers/embedded/trainer/trainSample';

export type BadCandidateContext = {
  runDir: string;
  recipe: Recipe;
  modelDir: string;
  spec: readonly AdapterTensorSpec[];
  loraScale: number;
  /** Homework tasks to train the trained kinds on (never the probe set). */
  tasks: readonly Task[];
  /** An engine that is not the serving one, for the reward-inverted rollouts (the probe engine). */
  scratchEngine: EngineClient;
  seed: number;
  /** The base model's sha256 (the run's run-started event). */
  baseSha256: string;
};

/** What `ReleaseGate.stage` takes. */
export type StagedBadCandidate = { version: string; sha256: string; blob: string; source: CandidateSource };

function loraSettings(recipe: Recipe): LoraSettings {
  const l = recipe.trainer.lora;
  return { rank: l.rank, alpha: l.alpha, targets: l.target_modules.map(loraModuleFromPeft) };
}

function gaussian(rng: Rng): number {
  // Box–Muller; 1 − next() keeps the logarithm finite.
  return Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
}

/** Seeded Gaussian factors, every value times `std`. */
function randomTensors(spec: readonly AdapterTensorSpec[], rng: Rng, std: number): Map<string, Float32Tensor> {
  return new Map(
    spec.map((s) => {
      const data = new Float32Array(s.shape[0] * s.shape[1]);
      for (let i = 0; i < data.length; i++) data[i] = gaussian(rng) * std;
      return [s.name, { shape: s.shape, data }];
    }),
  );
}

/**
 * Expected ‖scale·B·A‖_F² for Gaussian factors of std σ: per module
 * scale²·σ⁴·r·in·out, so σ follows from the wanted norm.
 */
function noiseStd(spec: readonly AdapterTensorSpec[], scale: number, norm: number): number {
  let perSigma4 = 0;
  for (const s of spec) if (s.part === 'A') {
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
    adapterConfig: { peft_type: 'LORA', r: settings.rank, lora_alpha: settings.alpha, target_modules: ctx.recipe.trainer.lora.target_modules, base_model_name_or_path: ctx.modelDir },
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
  const settings = loraSettings(ctx.recipe);
  const metadata = peftAdapterMetadata(settings);
  const base = ctx.baseSha256;
  // A healthy-looking small adapter: the starting point of the structural kinds.
  const healthy = () => randomTensors(ctx.spec, rng, 1e-3);
  switch (kind) {
    case 'random-noise': {
      const std = noiseStd(ctx.spec, ctx.loraScale, 2 * ctx.recipe.gate.max_update_norm);
      const stored = await putInjected(ctx, serializeSafetensors(randomTensors(ctx.spec, rng, std), metadata), `random-noise: Gaussian factors, update norm ≈ 2 × the bound`, base);
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
      tensors.set(s.name, { shape: [s.shape[0] + 1, s.shape[1]], data: new Float32Array((s.shape[0] + 1) * s.shape[1]).fill(1e-3) });
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
    case 'collapsed':
      return trainedBadCandidate(kind, ctx, settings);
    default: {
      const unknown: never = kind;
      throw new Error(`unknown bad-candidate kind ${String(unknown)}`);
    }
  }
}

async function trainedBadCandidate(kind: 'reward-inverted' | 'collapsed', ctx: BadCandidateContext, settings: LoraSettings): Promise<StagedBadCandidate> {
  const model = await loadTrainerModel(ctx.modelDir);
  try {
    const tokenizer = Tokenizer.fromJson(JSON.parse(readFileSync(path.join(ctx.modelDir, 'tokenizer.json'), 'utf8')) as unknown);
    const store = new WeightStore(path.join(ctx.runDir, 'weights'));
    const stored =
      kind === 'reward-inverted'
        ? await trainRewardInvertedAdapter({
            model,
            rollout: {
              engine: ctx.scratchEngine,
              tokenizer,
              judge: createTurnJudge(ctx.recipe.judge),
              sampling: samplingOf(ctx.recipe),
              topK: ctx.recipe.policy.logprobs_top_k,
            },
            tasks: ctx.tasks,
            store,
            lora: settings,
            seed: ctx.seed,
          })
        : await trainCollapsedAdapter(model, tokenizer, ctx, settings, store);
    return staged(ctx, stored, kind);
  } finally {
    await model.release();
  }
}

function samplingOf(recipe: Recipe) {
  const s = recipe.policy.sampling;
  return { temperature: s.temperature, topP: s.top_p, topK: s.top_k, maxTokens: s.max_tokens };
}

/**
 * Policy-gradient steps toward ending the reply at once: each sample is a
 * homework prompt answered by `<|end|>` alone with reward +1. The old
 * log-prob is written as 0 (probability 1), so the PPO ratio is π(end) ≤ 1
 * and the clip never stops the push — a supervised step, in effect, through
 * the same objective and optimizer the real trainer uses. The loss is
 * −mean π(end); training stops once the policy ends nearly every reply at
 * once, or before the update outgrows the gate's norm bound (a collapsed
 * adapter that verify would reject for its size is not the case to test:
 * the probes must catch the collapse itself).
 */
async function trainCollapsedAdapter(
  model: TrainerModel,
  tokenizer: Tokenizer,
  ctx: BadCandidateContext,
  settings: LoraSettings,
  store: WeightStore,
): Promise<StoredCandidate> {
  const trainer = new LoraTrainer(
    model.graph,
    LoraParams.init(model.shape, settings, ctx.seed),
    // The samples' old log-probs are the target (π(end) = 1), not a policy's: the ratio must read them as given.
    { objective: { ...DEFAULT_OBJECTIVE, oldLogprobs: 'rollout' }, optimizer: { ...DEFAULT_ADAMW, lr: 5e-3 }, maxTokensPerCall: 4096 },
    0,
    model.forward,
  );
  const samples: TrainSample[] = ctx.tasks.slice(0, 8).map((task, i) => ({
    sessionId: `collapse-${i}`,
    turn: 0,
    promptIds: tokenizer.encodeChat([{ role: 'user', content: task.firstMessage }]),
    responseIds: [tokenizer.endId],
    forced: [false],
    logprobs: [0],
    topIds: [[tokenizer.endId]],
    topLogprobs: [[0]],
    reward: 1,
  }));
  const normOf = (params: LoraParams): number => {
    const bytes = serializePeftAdapter(params);
    const check = verifyCandidateBytes(bytes, sha256Hex(bytes), { spec: ctx.spec, loraScale: ctx.loraScale, maxUpdateNorm: Infinity });
    return check.ok ? check.evidence.updateNorm : Infinity;
  };
  const budget = 0.9 * ctx.recipe.gate.max_update_norm;
  let kept = trainer.params.clone();
  let loss: number | null = null;
  for (let step = 0; step < 40; step++) {
    const report = await trainer.step(samples);
    if (normOf(trainer.params) > budget) break;
    kept = trainer.params.clone();
    loss = report.loss;
    if (report.loss < -0.95) break; // π(end) > 0.95 on average: every reply ends at once
  }
  const final = new LoraTrainer(model.graph, kept, trainer.options, trainer.steps, model.forward);
  const candidates = new CandidateTrainer(final, store, { sha256: model.baseSha256, nameOrPath: ctx.modelDir });
  return candidates.storeCurrent('injected', loss, 'collapsed: trained to answer every homework with <|end|> at once');
}
