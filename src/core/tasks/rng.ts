/**
 * A small seeded pseudo-random generator (mulberry32). The homework, the probe
 * set, the scripted student's wording and the model's training corpus must all
 * be reproducible from a seed, so nothing in this domain uses Math.random.
 */
export interface Rng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [lo, hi] (both inclusive). */
  int(lo: number, hi: number): number;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** True with probability p. */
  chance(p: number): boolean;
  /** A shuffled copy. */
  shuffle<T>(items: readonly T[]): T[];
}

export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number): number => {
    if (!Number.isInteger(lo) || !Number.isInteger(hi) || hi < lo) {
      throw new Error(`rng.int: bad range [${lo}, ${hi}]`);
    }
    return lo + Math.floor(next() * (hi - lo + 1));
  };
  const pick = <T>(items: readonly T[]): T => {
    if (items.length === 0) throw new Error('rng.pick: empty list');
    return items[Math.floor(next() * items.length)] as T;
  };
  const shuffle = <T>(items: readonly T[]): T[] => {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [out[i], out[j]] = [out[j] as T, out[i] as T];
    }
    return out;
  };
  return { next, int, pick, chance: (p) => next() < p, shuffle };
}

/**
 * Derive a seed from a base seed and a label (FNV-1a over both), for the task
 * generator and the corpus. Not for a run's seed: it XORs the seed into FNV's
 * offset basis and then hashes the seed's decimal digits, and for the seeds
 * 0–9 the two cancel (d ^ ('0' + d) = 0x30), so every one-digit seed derives
 * the same values. The committed homework, probe sets and policy corpus were
 * made with it (from large seeds, which do not collide), so it stays as it is.
 */
export function deriveSeed(seed: number, label: string): number {
  return fnv1a((0x811c9dc5 ^ (seed >>> 0)) >>> 0, `${seed}:${label}`);
}

/**
 * The seed of one part of a run (a session, a turn, a student's reply) from the
 * run's seed: FNV-1a over "seed:label" from the standard offset basis, so two
 * run seeds give two different texts and so, but for a 32-bit hash collision,
 * two different parts — unlike deriveSeed for one-digit seeds.
 */
export function runPartSeed(seed: number, label: string): number {
  if (!Number.isSafeInteger(seed)) throw new Error(`a run seed must be a safe integer, got ${seed}`);
  return fnv1a(0x811c9dc5, `${seed}:${label}`);
}

/** 32-bit FNV-1a of `text`'s UTF-16 code units, from the state `h`. */
function fnv1a(h: number, text: string): number {
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** The seed of the i-th reply of round (or step) k of an on-policy loop: fixed by (seed, k, i), so the loop is repeatable. */
export function rolloutSeed(seed: number, round: number, i: number): number {
  return (seed * 1_000_003 + round * 10_007 + i * 101) % 2_147_483_647;
}
