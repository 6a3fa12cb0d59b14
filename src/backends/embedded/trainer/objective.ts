/**
 * The OpenClaw-RL objective (docs/design.md, The objective), per response position, with its
 * gradient with respect to the log-probs at that position — the only part of
 * the backward pass that lives in TypeScript; grad.onnx does the rest.
 *
 * For a valid (not forced) response token t with sampled id y:
 *   PG_t  = −min(ρ·A, clip(ρ, 1−clipLow, 1+clipHigh)·A),  ρ = exp(clamp(logπ(y) − old(y), ±logRatioClamp)),  A = reward
 *   OPD_t = Σ_{v ∈ old top-K} −min(ρ_v·A_v, clip(ρ_v)·A_v),
 *           A_v = clamp(teacher(v) − old(v), ±opdAdvantageClamp) · softmax_K(old)(v)
 *   KL_t  = Σ_v π(v)·(logπ(v) − base(v))   (KL(π‖base) exactly, over the whole vocabulary; klToBase)
 * and loss = (wRl·ΣPG + wOpd·ΣOPD + klCoef·ΣKL) / (valid tokens in the batch).
 * "old" is whatever the caller passes; batchGradients passes the trainer's own
 * log-probs or the engine's recorded ones by `oldLogprobs`.
 * Log-probs are log_softmax(logits / temperature); the temperature must be the
 * one the old log-probs were computed at (the embedded engine reports raw
 * log-probs, temperature 1). tools/trainer/reference.py is the same objective
 * in torch; the golden vectors tie the two together.
 */

export interface ObjectiveConfig {
  readonly temperature: number;
  readonly clipLow: number;
  readonly clipHigh: number;
  readonly logRatioClamp: number;
  readonly wRl: number;
  readonly wOpd: number;
  readonly klCoef: number;
  readonly opdAdvantageClamp: number;
  /**
   * Which log-probs are "old" (π_old of the ratio and of the OPD advantage):
   * 'actor' recomputes them with the trainer's own weights at the start of
   * the step, as slime does by default; 'rollout' takes the ones the serving
   * engine recorded at generation (slime's --use-rollout-logprobs). With one
   * optimizer step per batch, 'actor' puts the ratio at exactly 1, so the
   * clip never binds. That matters behind a gate: serving lags the trainer by
   * every unpromoted step, and with 'rollout' the clip zeroes the gradient of
   * every token the trainer has already moved 20 % from serving, so the
   * trainer cannot move further until a candidate is promoted.
   */
  readonly oldLogprobs: 'actor' | 'rollout';
}

/** The reference values (docs/design.md, The objective). */
export const DEFAULT_OBJECTIVE = {
  temperature: 1,
  clipLow: 0.2,
  clipHigh: 0.28,
  logRatioClamp: 20,
  wRl: 1,
  wOpd: 1,
  klCoef: 0,
  opdAdvantageClamp: 1,
  oldLogprobs: 'actor',
} as const satisfies ObjectiveConfig;

/** What the objective needs at one response position. */
export interface PositionInput {
  readonly sampledId: number;
  readonly oldLogprob: number;
  readonly reward: number;
  /** The old top-K (ids and log-probs) and the teacher's log-probs at those ids; absent = no OPD term. */
  readonly opd?: { readonly ids: readonly number[]; readonly old: readonly number[]; readonly teacher: readonly number[] };
}

/** Unweighted terms at one position and d(weighted sum)/d logπ(id), sparse. */
export interface PositionTerms {
  readonly pg: number;
  readonly opd: number;
  /** Gradient of wRl·pg + wOpd·opd with respect to logπ(ids[j]). */
  readonly ids: number[];
  readonly dlogp: number[];
}

function clamp(x: number, low: number, high: number): number {
  return x < low ? low : x > high ? high : x;
}

/** −min(ρA, clip(ρ)A) and its derivative with respect to logπ. */
export function clippedSurrogate(logp: number, old: number, advantage: number, cfg: ObjectiveConfig): { value: number; dlogp: number } {
  const delta = logp - old;
  const clamped = clamp(delta, -cfg.logRatioClamp, cfg.logRatioClamp);
  const ratio = Math.exp(clamped);
  const unclipped = ratio * advantage;
  const clipped = clamp(ratio, 1 - cfg.clipLow, 1 + cfg.clipHigh) * advantage;
  if (unclipped <= clipped) {
    // The unclipped branch is active; its slope vanishes where the log-ratio clamp saturates.
    const inside = delta >= -cfg.logRatioClamp && delta <= cfg.logRatioClamp;
    return { value: -unclipped, dlogp: inside ? -unclipped : 0 };
  }
  // The clipped branch is strictly smaller only where ρ lies outside the clip range: constant there.
  return { value: -clipped, dlogp: 0 };
}

/** Softmax of a short list (the old top-K log-probs), stably. */
export function softmax(values: readonly number[]): number[] {
  const max = Math.max(...values);
  const exps = values.map((v) => Math.exp(v - max));
  const total = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / total);
}

/**
 * The objective's terms at one valid response position. `logp(id)` is the
 * current policy's log-prob of `id` at this position.
 */
export function positionObjective(logp: (id: number) => number, input: PositionInput, cfg: ObjectiveConfig): PositionTerms {
  const ids: number[] = [];
  const dlogp: number[] = [];
  const add = (id: number, g: number) => {
    if (g === 0) return;
    const at = ids.indexOf(id);
    if (at >= 0) dlogp[at] = (dlogp[at] as number) + g;
    else {
      ids.push(id);
      dlogp.push(g);
    }
  };

  const lpSampled = logp(input.sampledId);
  const pg = clippedSurrogate(lpSampled, input.oldLogprob, input.reward, cfg);
  add(input.sampledId, cfg.wRl * pg.dlogp);

  let opd = 0;
  if (input.opd !== undefined) {
    const { ids: topIds, old, teacher } = input.opd;
    const weights = softmax(old);
    for (let j = 0; j < topIds.length; j += 1) {
      const id = topIds[j] as number;
      const oldJ = old[j] as number;
      const advantage = clamp((teacher[j] as number) - oldJ, -cfg.opdAdvantageClamp, cfg.opdAdvantageClamp) * (weights[j] as number);
      const term = clippedSurrogate(logp(id), oldJ, advantage, cfg);
      opd += term.value;
      add(id, cfg.wOpd * term.dlogp);
    }
  }
  return { pg: pg.value, opd, ids, dlogp };
}

/** log Σ exp(row / temperature) in double precision. */
export function logSumExpScaled(row: ArrayLike<number>, temperature: number): number {
  let max = -Infinity;
  for (let i = 0; i < row.length; i += 1) max = Math.max(max, (row[i] as number) / temperature);
  let sum = 0;
  for (let i = 0; i < row.length; i += 1) sum += Math.exp((row[i] as number) / temperature - max);
  return max + Math.log(sum);
}

/**
 * Writes dLoss/dlogits for one position into `out`: with logπ = z/T − lse(z/T),
 * dL/dz_j = (g_j − p_j·Σg) / T, where g is the sparse dL/dlogπ scaled by `scale`.
 */
export function writeLogitsGradient(
  row: ArrayLike<number>,
  lse: number,
  temperature: number,
  ids: readonly number[],
  dlogp: readonly number[],
  scale: number,
  out: Float32Array | Float64Array,
): void {
  let total = 0;
  for (const g of dlogp) total += g;
  total *= scale;
  const invT = 1 / temperature;
  for (let j = 0; j < row.length; j += 1) out[j] = -Math.exp((row[j] as number) * invT - lse) * total * invT;
  for (let k = 0; k < ids.length; k += 1) {
    const id = ids[k] as number;
    out[id] = (out[id] as number) + (dlogp[k] as number) * scale * invT;
  }
}

/**
 * KL(π‖base) at one position, exactly, over the whole vocabulary, with
 * `scale`·dKL/dlogits added into `out`: dKL/dz_j = π_j·(logπ_j − base_j − KL) / T.
 * Exact rather than the k3 estimate e^d − d − 1 from the sampled token alone:
 * the run trains on replies the serving version sampled, not the adapter, and
 * there k3 explodes wherever the adapter has pushed a sampled token far below
 * the base (measured in a recipe run: 3·10^5 per token, a gradient norm of
 * 5·10^6 that clipping turned into a step along the KL term alone).
 */
export function klToBase(
  row: ArrayLike<number>,
  lse: number,
  temperature: number,
  baseRow: ArrayLike<number>,
  scale: number,
  out: Float32Array | Float64Array,
): number {
  if (baseRow.length !== row.length) throw new Error(`the base log-probs have ${baseRow.length} entries, the vocabulary ${row.length}`);
  const invT = 1 / temperature;
  let kl = 0;
  for (let j = 0; j < row.length; j += 1) {
    const lp = (row[j] as number) * invT - lse;
    kl += Math.exp(lp) * (lp - (baseRow[j] as number));
  }
  for (let j = 0; j < row.length; j += 1) {
    const lp = (row[j] as number) * invT - lse;
    out[j] = (out[j] as number) + scale * Math.exp(lp) * (lp - (baseRow[j] as number) - kl) * invT;
  }
  return kl;
}
