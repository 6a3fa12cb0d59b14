/**
 * The reward-inverted bad candidate's rewards (docs/design.md, Injected bad
 * candidates): +1 for a reply worse than its batch's mean by the criterion's
 * badness (more markdown markers; a stated preference broken by more), −1 for
 * better, 0 (not trained) at the mean. Flipping the student's reward alone is
 * no signal once every reply breaks the preference: every reply draws a
 * complaint, so every flipped reward is the same +1 and the steps only drift.
 */
export function towardWorseRewards(badness: readonly number[]): number[] {
  const mean = badness.reduce((s, n) => s + n, 0) / Math.max(1, badness.length);
  return badness.map((n) => Math.sign(n - mean));
}
