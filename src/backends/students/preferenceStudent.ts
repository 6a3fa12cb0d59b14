// The scripted user of a recipe with a stated preference (docs/design.md, A stated
// preference; the wording in src/core/tasks/student.ts). It asks its question and
// judges each reply by the preference verdict: an accepted reply gets its thanks
// and the session ends; any other gets a complaint whose hindsight is the user's
// statement of the preference (and a request to answer, when the reply did not).
import type { Student, StudentFactory, StudentReaction } from '../../core/protocols/studentProtocol';
import { replyCriterion, type ReplyCriterion } from '../../core/preference/replyCriterion';
import type { StatedPreference } from '../../core/preference/preferenceRule';
import { createRng, type Rng } from '../../core/tasks/rng';
import { PREFERENCE_THANKS, preferenceComplaint } from '../../core/tasks/student';
import type { Task } from '../../core/tasks/task';

export class PreferenceStudent implements Student {
  private readonly rng: Rng;

  constructor(
    private readonly task: Task,
    seed: number,
    private readonly preference: StatedPreference,
    private readonly criterion: ReplyCriterion,
  ) {
    this.rng = createRng(seed);
  }

  firstMessage(): Promise<string> {
    return Promise.resolve(this.task.firstMessage);
  }

  react(reply: string): Promise<StudentReaction> {
    const verdict = this.criterion.judge(reply, this.task);
    if (verdict.accepted) return Promise.resolve({ message: PREFERENCE_THANKS, done: true, verdict });
    return Promise.resolve({ message: preferenceComplaint(verdict.failures, this.preference.statement, this.rng).text, done: false, verdict });
  }
}

export function preferenceStudents(preference: StatedPreference): StudentFactory {
  const criterion = replyCriterion(preference);
  return { forSession: (task, seed) => new PreferenceStudent(task, seed, preference, criterion) };
}
