/**
 * What the frozen base (LoRA off) says about a sample, computed by the trainer
 * itself because it already holds the base weights and the graph:
 * - the OPD teacher: the base scoring the student's response with the hint
 *   appended to the last user message (`hintedPromptIds`), at the old top-K ids;
 * - the KL reference: the base's whole distribution at each response position on the plain prompt.
 * Neither depends on the adapter, so each is computed once per sample.
 */
import type { GraphCall, LogitsSource } from './logitsSource';
import { logSumExpScaled } from './objective';
import { groupByTokenBudget, padRight, type TokenSequence } from './sequenceBatch';
import type { TokenSample } from './tokenSample';

export interface FrozenBaseScores {
  /** teacher(v) at each response position for the old top-K ids; null when the sample has no teacher. */
  readonly teacherTopLogprobs: number[][] | null;
  /** The base's log-probs over the whole vocabulary at each response position, on the plain prompt (the KL term); null when not asked for. */
  readonly baseLogprobs: ArrayLike<number>[] | null;
}

/**
 * What `read` takes from the frozen base's log-probs (at `temperature`) at each
 * response position — one forward pass per group of sequences.
 */
async function scoreWithBase<T>(
  source: LogitsSource,
  sequences: readonly TokenSequence[],
  responseLengths: readonly number[],
  read: (seqIndex: number, t: number, logprob: (id: number) => number) => T,
  temperature: number,
  maxTokensPerCall: number,
  calls: GraphCall[] | undefined,
): Promise<T[][]> {
  const out: T[][] = sequences.map(() => []);
  const vocab = source.shape.vocabSize;
  for (const group of groupByTokenBudget(
    sequences.map((s) => s.ids.length),
    maxTokensPerCall,
  )) {
    const batch = padRight(group.map((i) => sequences[i] as TokenSequence));
    const logits = await source.forward(batch, null);
    calls?.push({ kind: 'forward', batch: batch.batch, time: batch.time });
    group.forEach((seqIndex, b) => {
      const seq = sequences[seqIndex] as TokenSequence;
      for (let t = 0; t < (responseLengths[seqIndex] as number); t += 1) {
        const pos = seq.responseStart - 1 + t;
        const row = logits.subarray((b * batch.time + pos) * vocab, (b * batch.time + pos + 1) * vocab);
        const lse = logSumExpScaled(row, temperature);
        (out[seqIndex] as T[]).push(read(seqIndex, t, (id) => (row[id] as number) / temperature - lse));
      }
    });
  }
  return out;
}

export async function frozenBaseScores(
  source: LogitsSource,
  samples: readonly TokenSample[],
  options: { readonly needBase: boolean; readonly temperature: number; readonly maxTokensPerCall: number },
  calls?: GraphCall[],
): Promise<FrozenBaseScores[]> {
  const lengths = samples.map((s) => s.responseIds.length);
  const teacherIndex = samples.map((s, i) => (s.hintedPromptIds !== undefined ? i : -1)).filter((i) => i >= 0);
  const teacherScores = await scoreWithBase(
    source,
    teacherIndex.map((i) => {
      const s = samples[i] as TokenSample;
      const prompt = s.hintedPromptIds as number[];
      return { ids: [...prompt, ...s.responseIds], responseStart: prompt.length };
    }),
    teacherIndex.map((i) => lengths[i] as number),
    (row, t, logprob) => ((samples[teacherIndex[row] as number] as TokenSample).topIds[t] as number[]).map(logprob),
    options.temperature,
    options.maxTokensPerCall,
    calls,
  );
  const baseScores = options.needBase
    ? await scoreWithBase(
        source,
        samples.map((s) => ({ ids: [...s.promptIds, ...s.responseIds], responseStart: s.promptIds.length })),
        lengths,
        (_row, _t, logprob) => Float64Array.from({ length: source.shape.vocabSize }, (_, id) => logprob(id)),
        options.temperature,
        options.maxTokensPerCall,
        calls,
      )
    : null;
  return samples.map((s, i) => {
    const at = teacherIndex.indexOf(i);
    return {
      teacherTopLogprobs: at >= 0 ? (teacherScores[at] as number[][]) : (s.teacherTopLogprobs ?? null),
      baseLogprobs: baseScores === null ? null : (baseScores[i] as Float64Array[]),
    };
  });
}
