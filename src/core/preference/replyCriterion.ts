// What accepts a reply in a run: the pass criterion of the homework recipes, or
// a stated preference with its floor when the recipe names one (docs/design.md,
// A stated preference). The session loop, the student and the gate's probe
// rounds all judge with the one the recipe picks.
import { judgeReply, type Verdict } from '../judge/criterion';
import type { Task } from '../tasks/task';
import { preferenceVerdict } from './preferenceVerdict';
import type { StatedPreference } from './preferenceRule';

export type ReplyCriterion = (reply: string, task: Pick<Task, 'answer' | 'mentions'>) => Verdict;

export const passCriterion: ReplyCriterion = (reply, task) => judgeReply(reply, task.answer);

export function replyCriterion(preference: StatedPreference | undefined): ReplyCriterion {
  if (preference === undefined) return passCriterion;
  return (reply, task) => preferenceVerdict(reply, task, preference.rule);
}
