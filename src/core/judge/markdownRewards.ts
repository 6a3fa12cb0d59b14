/**
 * The reward-inverted bad candidate's rewards (docs/design.md, Injected bad candidates): +1 for a reply
 * with more markdown markers than its batch's mean, −1 for fewer, 0 (not
 * trained) at the mean. Flipping the student's reward alone is no signal
 * once the policy writes markdown in every reply: every reply draws a
 * complaint, so every flipped reward is the same +1 and the steps only drift.
 */
export function towardMarkdownRewards(markerCounts: readonly number[]): number[] {
  const mean = markerCounts.reduce((s, n) => s + n, 0) / Math.max(1, markerCounts.length);
  return markerCounts.map((n) => Math.sign(n - mean));
}
