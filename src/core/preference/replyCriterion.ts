// What accepts a reply in a run: the pass criterion of the homework recipes, or
// a stated preference with its floor when the recipe names one (docs/design.md,
// A stated preference). The session loop, the student and the gate's probe
// rounds all judge with the one the recipe picks.
import { countViolations, judgeReply, type Verdict } from '../judge/criterion';
import type { Task } from '../tasks/task';
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
   * What the criterion punishes, in words, and how much of it a reply has (markers, or
   * characters outside the rule): what the reward-inverted bad candidate trains toward.
   */
  punishes: string;
  badness(reply: string, task: Pick<Task, 'answer'>): number;
};

export const passCriterion: ReplyCriterion = {
  judge: (reply, task) => judgeReply(reply, task.answer),
  // A style marker stays; missing work or a missing answer might have come.
  settledWhenCut: (verdict) => verdict.failures.includes('style'),
  punishes: 'markdown',
  badness: (reply, task) => countViolations(judgeReply(reply, task.answer)),
};

export function replyCriterion(preference: StatedPreference | undefined): ReplyCriterion {
  if (preference === undefined) return passCriterion;
  const { rule } = preference;
  return {
    judge: (reply, task) => preferenceVerdict(reply, task, rule),
    // A broken rule stays broken as the reply goes on, but for an ending: the cut took it.
    settledWhenCut: (verdict) => verdict.failures.includes('preference') && rule.kind !== 'ends_with',
    punishes: 'breaking the stated preference',
    badness: (reply) => breakExtent(reply, rule),
  };
}
