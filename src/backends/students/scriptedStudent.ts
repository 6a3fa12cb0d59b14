// The scripted student of one session (docs/design.md, A session; the wording contract in
// docs/internals.md): it reacts to each reply, never says up front what it
// wants. While the homework is unsolved, a reply with any violation gets a
// complaint with hindsight and a clean, correct one gets the request to
// append the answers; once the request is made, a reply that confirms the
// save gets HOMEWORK_DONE and the session ends.
import { judgeReply } from '../../core/judge/criterion';
import type { Student, StudentFactory, StudentReaction } from '../../core/protocols/studentProtocol';
import { createRng, type Rng } from '../../core/tasks/rng';
import { complaintFor, confirmsSave, DONE, homeworkPath, saveRequest, violationKinds } from '../../core/tasks/student';
import type { Task } from '../../core/tasks/task';

export class ScriptedStudent implements Student {
  private asked = false;
  private readonly rng: Rng;

  constructor(
    private readonly task: Task,
    seed: number,
  ) {
    this.rng = createRng(seed);
  }

  firstMessage(): Promise<string> {
    return Promise.resolve(this.task.firstMessage);
  }

  react(reply: string): Promise<StudentReaction> {
    return Promise.resolve(this.reactNow(reply));
  }

  private reactNow(reply: string): StudentReaction {
    if (this.asked) {
      if (confirmsSave(reply, this.task)) return { message: DONE, done: true, verdict: null };
      // Neither progress nor a correction: the rule PRM scores this 0.
      return { message: `Did you save it? Tell me when the answers are in ${homeworkPath(this.task.index)}.`, done: false, verdict: null };
    }
    const verdict = judgeReply(reply, this.task.answer);
    if (verdict.accepted) {
      this.asked = true;
      return { message: saveRequest(this.task), done: false, verdict };
    }
    return { message: complaintFor(violationKinds(verdict), this.rng).text, done: false, verdict };
  }
}

export const scriptedStudents: StudentFactory = {
  forSession: (task, seed) => new ScriptedStudent(task, seed),
};
