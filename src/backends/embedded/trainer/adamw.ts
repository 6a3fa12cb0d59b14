/**
 * Adam with decoupled weight decay (Loshchilov & Hutter; torch.optim.AdamW's
 * update, step for step) and global gradient-norm clipping
 * (torch.nn.utils.clip_grad_norm_). Written by hand: it is a dozen lines over
 * typed arrays, and the golden vectors check it against torch.
 */

export interface AdamWConfig {
  readonly lr: number;
  readonly betas: readonly [number, number];
  readonly eps: number;
  readonly weightDecay: number;
  /** Global L2 norm the gradient is clipped to; Infinity disables clipping. */
  readonly maxGradNorm: number;
}

/** docs/design.md, The objective: Adam, weight decay 0.1, betas (0.9, 0.98); clip at 1.0 as the reference (slime) does. */
export const DEFAULT_ADAMW = {
  lr: 1e-5,
  betas: [0.9, 0.98],
  eps: 1e-8,
  weightDecay: 0.1,
  maxGradNorm: 1,
} as const satisfies AdamWConfig;

/** The global L2 norm of a set of gradients. */
export function globalNorm(grads: Iterable<Float64Array>): number {
  let sum = 0;
  for (const g of grads) for (const v of g) sum += v * v;
  return Math.sqrt(sum);
}

/** Scales the gradients in place so their global norm is at most maxNorm; returns the norm before clipping. */
export function clipGradNorm(grads: readonly Float64Array[], maxNorm: number): number {
  const norm = globalNorm(grads);
  // torch: clip_coef = max_norm / (total_norm + 1e-6), applied only when < 1.
  const coef = maxNorm / (norm + 1e-6);
  if (coef < 1) for (const g of grads) for (let i = 0; i < g.length; i += 1) g[i] = (g[i] as number) * coef;
  return norm;
}

export interface AdamWState {
  readonly steps: number;
  readonly m: ReadonlyMap<string, Float64Array>;
  readonly v: ReadonlyMap<string, Float64Array>;
}

export class AdamW {
  private readonly m = new Map<string, Float64Array>();
  private readonly v = new Map<string, Float64Array>();
  private stepCount = 0;

  constructor(readonly config: AdamWConfig) {
    if (!(config.lr > 0)) throw new Error(`learning rate must be positive, got ${config.lr}`);
  }

  get steps(): number {
    return this.stepCount;
  }

  /** The moments and the step count: with the parameters, everything a checkpoint needs to continue exactly. */
  state(): AdamWState {
    return { steps: this.stepCount, m: new Map(this.m), v: new Map(this.v) };
  }

  /** Continues from a saved state (the moments are copied). */
  load(state: AdamWState): void {
    if (!Number.isInteger(state.steps) || state.steps < 0) throw new Error(`AdamW state: bad step count ${state.steps}`);
    this.stepCount = state.steps;
    this.m.clear();
    this.v.clear();
    for (const [key, m] of state.m) {
      const v = state.v.get(key);
      if (v === undefined || v.length !== m.length) throw new Error(`AdamW state: the second moment of ${key} is missing or of another size`);
      this.m.set(key, Float64Array.from(m));
      this.v.set(key, Float64Array.from(v));
    }
  }

  /**
   * One update of every parameter that has a gradient, in place. `lr`
   * overrides the configured rate (a schedule). Gradients must already be clipped.
   */
  step(params: ReadonlyMap<string, Float64Array>, grads: ReadonlyMap<string, Float64Array>, lr = this.config.lr): void {
    this.stepCount += 1;
    const [beta1, beta2] = this.config.betas;
    const bias1 = 1 - beta1 ** this.stepCount;
    const bias2 = 1 - beta2 ** this.stepCount;
    const decay = 1 - lr * this.config.weightDecay;
    for (const [key, p] of params) {
      const g = grads.get(key);
      if (g === undefined) throw new Error(`no gradient for ${key}`);
      if (g.length !== p.length) throw new Error(`gradient of ${key} has ${g.length} values, the parameter ${p.length}`);
      let m = this.m.get(key);
      let v = this.v.get(key);
      if (m === undefined || v === undefined) {
        m = new Float64Array(p.length);
        v = new Float64Array(p.length);
        this.m.set(key, m);
        this.v.set(key, v);
      }
      const sqrtBias2 = Math.sqrt(bias2);
      for (let i = 0; i < p.length; i += 1) {
        const gi = g[i] as number;
        const mi = beta1 * (m[i] as number) + (1 - beta1) * gi;
        const vi = beta2 * (v[i] as number) + (1 - beta2) * gi * gi;
        m[i] = mi;
        v[i] = vi;
        // torch: p *= 1 - lr*wd; p -= (lr / bias1) * m / (sqrt(v) / sqrt(bias2) + eps)
        p[i] = (p[i] as number) * decay - (lr / bias1) * (mi / (Math.sqrt(vi) / sqrtBias2 + this.config.eps));
      }
    }
  }
}
