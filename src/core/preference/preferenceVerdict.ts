// The verdict on a reply under a stated preference (docs/design.md, A stated preference):
// accepted when the reply meets the rule and still answers its question (the floor),
// in the pass criterion's Verdict shape so that the curve, the transcripts and the
// gate read it as they read the homework's. A broken rule is the failure
// `preference`; a missed floor is `no-gold-answer` (the floor is this recipe's gold).
import type { RejectReason, Verdict } from '../judge/criterion';
import type { Task } from '../tasks/task';
import { findFloor } from './floorAnswer';
import { checkPreference, type PreferenceRule } from './preferenceRule';

export function preferenceVerdict(reply: string, task: Pick<Task, 'answer' | 'mentions'>, rule: PreferenceRule): Verdict {
  if (reply.trim() === '') return { accepted: false, reason: 'no-reply', failures: ['no-reply'], markers: [], shownWork: [], goldAt: null };
  const failures: RejectReason[] = [];
  if (!checkPreference(reply, rule).met) failures.push('preference');
  const goldAt = findFloor(reply, task);
  if (goldAt === null) failures.push('no-gold-answer');
  return { accepted: failures.length === 0, reason: failures[0] ?? null, failures, markers: [], shownWork: [], goldAt };
}
