// How several judge votes become one signal (OpenClaw-RL's protocol).

import { DEFAULT_HINT_MIN_CHARS, isHintAccepted, type PrmScore } from './turnJudge';

/** The score most votes gave; a tie for the most votes, or no valid vote, is 0. */
export function pluralityVote(votes: readonly (PrmScore | null)[]): PrmScore {
  const counts = new Map<PrmScore, number>();
  for (const v of votes) if (v !== null) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: PrmScore = 0;
  let bestCount = 0;
  let tied = false;
  for (const [score, count] of counts) {
    if (count > bestCount) {
      best = score;
      bestCount = count;
      tied = false;
    } else if (count === bestCount) {
      tied = true;
    }
  }
  return bestCount === 0 || tied ? 0 : best;
}

export type HintCandidate = { readonly decision: 1 | -1 | null; readonly hint: string | null };

/**
 * The hint to teach with: among votes that decided the next state carries
 * hindsight (\boxed{1}) and wrote a hint, the longest (the most informative).
 * Accepted when longer than `minChars` after trimming.
 */
export function selectHint(candidates: readonly HintCandidate[], minChars = DEFAULT_HINT_MIN_CHARS): { hint?: string; hintAccepted: boolean } {
  let best: string | undefined;
  for (const c of candidates) {
    const text = c.hint?.trim();
    if (c.decision !== 1 || !text) continue;
    if (best === undefined || text.length > best.length) best = text;
  }
  return best === undefined ? { hintAccepted: false } : { hint: best, hintAccepted: isHintAccepted(best, minChars) };
}
