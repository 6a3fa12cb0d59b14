/**
 * Token sampling and log-probabilities for the engine.
 *
 * Two distributions are involved and must not be confused:
 * - the *sampling* distribution (temperature, top-k, top-p) picks the token;
 * - the *raw* distribution, log_softmax of the unmodified logits, gives the
 *   log-prob and top-K reported for every token. That is the policy's
 *   log π(token | context), which the trainer needs as its "old" log-prob.
 *
 * Everything here works on a caller-owned logits row (a subarray of the ORT
 * output) and preallocated scratch buffers: no allocation per token.
 */
import { DEFAULT_SAMPLING as PROTOCOL_DEFAULT_SAMPLING } from '../../../core/protocols/engineProtocol';

export interface SamplingParams {
  /** 0 means greedy. */
  readonly temperature: number;
  /** Nucleus mass in (0, 1]; 1 disables it. */
  readonly topP: number;
  /** 0 (or ≥ vocab size) disables it. */
  readonly topK: number;
}

/** The recipe's defaults (docs/design.md, The objective), as the engine protocol states them. */
export const DEFAULT_SAMPLING: SamplingParams = PROTOCOL_DEFAULT_SAMPLING;

/**
 * xoshiro128** (Blackman & Vigna), seeded through splitmix32. Hand-written
 * because Math.random cannot be seeded and the reply must be a pure function
 * of (inputs, seed). Seeds are any safe integer; both 32-bit halves count.
 */
export class SeededRng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number) {
    if (!Number.isSafeInteger(seed)) throw new Error(`seed must be a safe integer, got ${seed}`);
    const low = seed >>> 0;
    const high = Math.floor(seed / 2 ** 32) >>> 0;
    let state = (low ^ Math.imul(high, 0x9e3779b9)) >>> 0;
    const splitmix32 = (): number => {
      state = (state + 0x9e3779b9) >>> 0;
      let z = state;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.s0 = splitmix32();
    this.s1 = splitmix32() ^ high;
    this.s2 = splitmix32();
    this.s3 = splitmix32();
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  /** The next 32 random bits as an unsigned integer. */
  nextUint32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** Uniform in [0, 1) with 53 random bits. */
  next(): number {
    const high = this.nextUint32() >>> 5;
    const low = this.nextUint32() >>> 6;
    return (high * 67108864 + low) / 9007199254740992;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** log Σ exp(logits), computed stably; log_softmax(x)_i = x_i − this. */
export function logSumExp(logits: Float32Array): number {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i += 1) {
    const v = logits[i] as number;
    if (v > max) max = v;
  }
  if (max === -Infinity || Number.isNaN(max)) return max;
  let sum = 0;
  for (let i = 0; i < logits.length; i += 1) sum += Math.exp((logits[i] as number) - max);
  return max + Math.log(sum);
}

/**
 * Writes the k largest logits' ids into `outIds[0..k)` in descending order
 * (ties: lower id first) and returns how many were written (min(k, V)).
 * Insertion into a short sorted list: O(V·k) worst case, O(V) typical.
 */
export function selectTopK(logits: Float32Array, k: number, outIds: Int32Array, outValues: Float32Array): number {
  const n = Math.min(k, logits.length, outIds.length, outValues.length);
  let count = 0;
  for (let id = 0; id < logits.length; id += 1) {
    const v = logits[id] as number;
    if (count === n && !(v > (outValues[n - 1] as number))) continue;
    let j = count < n ? count : n - 1;
    while (j > 0 && v > (outValues[j - 1] as number)) {
      outValues[j] = outValues[j - 1] as number;
      outIds[j] = outIds[j - 1] as number;
      j -= 1;
    }
    outValues[j] = v;
    outIds[j] = id;
    if (count < n) count += 1;
  }
  return count;
}

/**
 * Samples one token id from a logits row. Owns its scratch buffers (sized
 * for the vocabulary once), so one Sampler per engine, reused per token.
 */
export class Sampler {
  private readonly ids: Int32Array;
  private readonly values: Float32Array;
  private readonly probs: Float64Array;
  private readonly order: Int32Array;

  constructor(readonly vocabSize: number) {
    this.order = new Int32Array(vocabSize);
    this.ids = new Int32Array(vocabSize);
    this.values = new Float32Array(vocabSize);
    this.probs = new Float64Array(vocabSize);
  }

  sample(logits: Float32Array, params: SamplingParams, rng: SeededRng): number {
    if (logits.length !== this.vocabSize) {
      throw new Error(`sampler: logits row has ${logits.length} entries, vocab is ${this.vocabSize}`);
    }
    const { temperature, topP, topK } = params;
    const k = topK > 0 && topK < this.vocabSize ? topK : this.vocabSize;
    if (temperature <= 0 || k === 1) {
      selectTopK(logits, 1, this.ids, this.values);
      return this.ids[0] as number;
    }
    if (k === this.vocabSize && topP >= 1) return this.sampleUnfiltered(logits, temperature, rng);
    const count = k === this.vocabSize ? this.sortAll(logits) : selectTopK(logits, k, this.ids, this.values);
    const max = this.values[0] as number;
    if (!Number.isFinite(max)) throw new Error('sampler: logits are not finite');
    let total = 0;
    for (let i = 0; i < count; i += 1) {
      const p = Math.exp(((this.values[i] as number) - max) / temperature);
      this.probs[i] = p;
      total += p;
    }
    // Nucleus: the smallest prefix (by descending probability) whose mass
    // reaches topP; always at least one token.
    let kept = count;
    if (topP < 1) {
      let cumulative = 0;
      for (let i = 0; i < count; i += 1) {
        cumulative += (this.probs[i] as number) / total;
        if (cumulative >= topP) {
          kept = i + 1;
          break;
        }
      }
    }
    let keptMass = 0;
    for (let i = 0; i < kept; i += 1) keptMass += this.probs[i] as number;
    let u = rng.next() * keptMass;
    for (let i = 0; i < kept; i += 1) {
      u -= this.probs[i] as number;
      if (u < 0) return this.ids[i] as number;
    }
    return this.ids[kept - 1] as number;
  }

  /** No top-k, no top-p: one pass over the vocabulary in id order, no sorting. */
  private sampleUnfiltered(logits: Float32Array, temperature: number, rng: SeededRng): number {
    let max = -Infinity;
    for (let i = 0; i < logits.length; i += 1) if ((logits[i] as number) > max) max = logits[i] as number;
    if (!Number.isFinite(max)) throw new Error('sampler: logits are not finite');
    let total = 0;
    for (let i = 0; i < logits.length; i += 1) {
      const p = Math.exp(((logits[i] as number) - max) / temperature);
      this.probs[i] = p;
      total += p;
    }
    let u = rng.next() * total;
    for (let i = 0; i < logits.length; i += 1) {
      u -= this.probs[i] as number;
      if (u < 0) return i;
    }
    return logits.length - 1;
  }

  /** Full descending sort of the vocabulary (only for top-p without top-k). */
  private sortAll(logits: Float32Array): number {
    const order = this.order;
    for (let i = 0; i < order.length; i += 1) order[i] = i;
    order.sort((a, b) => (logits[b] as number) - (logits[a] as number) || a - b);
    for (let i = 0; i < order.length; i += 1) {
      const id = order[i] as number;
      this.ids[i] = id;
      this.values[i] = logits[id] as number;
    }
    return order.length;
  }
}
