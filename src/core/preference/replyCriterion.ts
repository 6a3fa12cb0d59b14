// What accepts a reply in a run: the pass criterion of the homework recipes, or
// a stated preference with its floor when the recipe names one (docs/design.md,
// A stated preference). The session loop, the student and the gate's probe
// rounds all judge with the one the recipe picks.
import { countViolations, judgeReply, type Verdict } from '../judge/criterion';
import type { Task } from '../tasks/task';
import { findFloor } from './floorAnswer';
import { LOOP_WINDOW_WORDS, loops, replyWords } from './loopingReply';
import { preferenceVerdict } from './preferenceVerdict';
import { breakExtent, type StatedPreference } from './preferenceRule';

export type ReplyCriterion = {
  judge(reply: string, task: Pick<Task, 'answer' | 'mentions'>): Verdict;
  /**
   * Whether the verdict on a reply cut at max_tokens is one more text could not
   * change: rejected for something that stays (docs/design.md, Passing a round).
   */
  settledWhenCut(verdict: Verdict): boolean;
  /**
   * Whether a reply still being decoded already has the verdict every continuation
   * of it would get: the probe stops decoding it there (docs/design.md, Probe rounds).
   * Absent: no reply settles before its end, and the probe does not watch for it.
   */
  settledSoFar?(partial: string, task: Pick<Task, 'answer' | 'mentions'>): boolean;
  /**
   * What the criterion punishes, in words, and how much of it a reply has (markers, or
   * characters outside the rule, a missed floor outweighing any of them): what the
   * reward-inverted bad candidate trains toward.
   */
  punishes: string;
  badness(reply: string, task: Pick<Task, 'answer' | 'mentions'>): number;
};

/**
 * What a missed floor weighs in a preference's badness: more than any reply's characters
 * outside the rule, so that a reply without the answer is worse than every reply with it.
 */
export const MISSED_FLOOR_BADNESS = 1_000_000;

export const passCriterion: ReplyCriterion = {
  judge: (reply, task) => judgeReply(reply, task.answer),
  // A style marker stays; missing work or a missing answer might have come.
  // No settledSoFar: the answer may come in the reply's last words, so a homework reply is read to its end.
  settledWhenCut: (verdict) => verdict.failures.includes('style'),
  punishes: 'markdown',
  badness: (reply, task) => countViolations(judgeReply(reply, task.answer)),
};

export function replyCriterion(preference: StatedPreference | undefined): ReplyCriterion {
  if (preference === undefined) return passCriterion;
  const { rule } = preference;
  // A broken rule stays broken as the reply goes on, but for an ending: the cut took it.
  const settledWhenCut = (verdict: Verdict) => verdict.failures.includes('preference') && rule.kind !== 'ends_with';
  return {
    judge: (reply, task) => preferenceVerdict(reply, task, rule),
    settledWhenCut,
    settledSoFar: (partial, task) => {
      // Only whole words: the next token may still extend the last one ("4" → "45").
      const words = partial.slice(0, partial.search(/\s\S*$/u) + 1);
      // An opening shorter than the phrase is not missing yet.
      if (rule.kind === 'starts_with' && words.trim().length < rule.phrase.trim().length) return false;
      // Broken for good, and the floor decided for good: met (no loop so far) once the loop
      // check's window is past, missed only by a loop, which no continuation undoes.
      const verdict = preferenceVerdict(words, task, rule);
      if (!settledWhenCut(verdict)) return false;
      return verdict.goldAt !== null ? replyWords(words).length >= LOOP_WINDOW_WORDS : loops(words);
    },
    punishes: 'breaking the stated preference and missing the floor',
    badness: (reply, task) => breakExtent(reply, rule) + (findFloor(reply, task) === null ? MISSED_FLOOR_BADNESS : 0),
  };
}
