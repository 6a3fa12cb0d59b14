/**
 * Turns token sequences into the graphs' padded inputs. Right padding: with
 * causal attention no real token ever sees a pad, and pads get a zero
 * gradient, so padding changes nothing but the cost.
 */

export interface TokenSequence {
  /** prompt ++ response */
  readonly ids: readonly number[];
  /** Index in `ids` of the first response token; the logits at index p predict ids[p + 1]. */
  readonly responseStart: number;
}

export interface PaddedBatch {
  readonly batch: number;
  readonly time: number;
  readonly inputIds: BigInt64Array;
  readonly positionIds: BigInt64Array;
  readonly attentionMask: BigInt64Array;
  readonly rows: readonly TokenSequence[];
}

export function padRight(rows: readonly TokenSequence[]): PaddedBatch {
  if (rows.length === 0) throw new Error('cannot pad an empty batch');
  const time = Math.max(...rows.map((r) => r.ids.length));
  const batch = rows.length;
  const inputIds = new BigInt64Array(batch * time);
  const positionIds = new BigInt64Array(batch * time);
  const attentionMask = new BigInt64Array(batch * time);
  rows.forEach((row, b) => {
    for (let t = 0; t < row.ids.length; t += 1) {
      inputIds[b * time + t] = BigInt(row.ids[t] as number);
      positionIds[b * time + t] = BigInt(t);
      attentionMask[b * time + t] = 1n;
    }
  });
  return { batch, time, inputIds, positionIds, attentionMask, rows };
}

/**
 * Groups items into calls whose padded size (rows × longest row) stays within
 * `maxTokens`, longest first so that rows of similar length share a call.
 * Returns indices into `lengths`. A single row longer than the budget gets a call of its own.
 */
export function groupByTokenBudget(lengths: readonly number[], maxTokens: number): number[][] {
  const order = lengths.map((_, i) => i).sort((a, b) => (lengths[b] as number) - (lengths[a] as number) || a - b);
  const groups: number[][] = [];
  let current: number[] = [];
  let longest = 0;
  for (const i of order) {
    const len = lengths[i] as number;
    const widest = Math.max(longest, len);
    if (current.length > 0 && widest * (current.length + 1) > maxTokens) {
      groups.push(current);
      current = [];
      longest = 0;
    }
    current.push(i);
    longest = Math.max(longest, len);
  }
  if (current.length > 0) groups.push(current);
  return groups;
}
