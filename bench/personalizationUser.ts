/**
 * bench:personalization's scripted users and their arithmetic (pure).
 *
 * A recipe with a stated preference (docs/design.md, A stated preference) gets
 * the product's own user of it, the scripted student of that recipe: it
 * judges a reply by the preference and its floor, thanks an accepted one and
 * otherwise complains in its own words with the statement as the hindsight.
 * The evaluation's rate is the rule alone; the floor is reported beside it.
 *
 * Any other recipe gets the homework student of the embedded recipe with one
 * preference: plain prose, no markdown. Whether a reply has markdown is the
 * product's own detector, the pass criterion's style markers (bold, headings,
 * bullet and numbered lists, \boxed, a "Final answer:" label, rule lines and
 * tables), so the bench, the verifier and the gate agree on what markdown is.
 * The criterion has no code-fence marker; neither has the bench.
 *
 * The user speaks in the scripted student's wording because the rule PRM and
 * hint judge read exactly that wording (src/core/tasks/student.ts is the
 * contract): a complaint opens with one of the student's openers and states
 * the preference in its hindsight (−1, the hindsight is the hint), and the
 * satisfied follow-up is the student's save request (+1).
 */
import { PreferenceStudent } from '../src/backends/students/preferenceStudent';
import { judgeReply, type MarkerKind } from '../src/core/judge/criterion';
import { findFloor } from '../src/core/preference/floorAnswer';
import { checkPreference, describeRule, type StatedPreference } from '../src/core/preference/preferenceRule';
import { replyCriterion } from '../src/core/preference/replyCriterion';
import type { Rng } from '../src/core/tasks/rng';
import { complaintFor, saveRequest } from '../src/core/tasks/student';
import type { Task } from '../src/core/tasks/task';

export const PREFERENCE = 'plain prose, no markdown (no bold, headings, bullet or numbered lists, boxed answers or tables)';

type Reaction = { task: Task; complaintsSoFar: number; maxComplaints: number; rng: Rng };

/** What the bench needs of its user: the preference, how a reply stands against it, and what the user says next. */
export type ScriptedUser = {
  /** The preference in words, for the result file. */
  preference: string;
  /** Does a reply meet the preference (the evaluation's rate)? */
  meets(reply: string): boolean;
  /** What a reply breaks, one entry per kind (the evaluation's breakdown). */
  breaks(reply: string): string[];
  /** Does the reply still answer its problem (the criterion's gold, or the preference's floor)? */
  answers(reply: string, task: Task): boolean;
  reactTo(reply: string, o: Reaction): Promise<UserMessage>;
};

/** The user who wants plain prose, no markdown. */
export const markdownUser: ScriptedUser = {
  preference: PREFERENCE,
  meets: (reply) => meetsPreference(reply),
  breaks: (reply) => markdownKinds(reply),
  answers: (reply, task) => judgeReply(reply, task.answer).goldAt !== null,
  reactTo: (reply, o) => Promise.resolve(reactTo(reply, o)),
};

/**
 * The user of a recipe's stated preference: the product's scripted student of
 * it decides what is said; the bench only ends the conversation at its last
 * allowed complaint (the product's sessions end at max_turns instead).
 */
export function statedPreferenceUser(preference: StatedPreference): ScriptedUser {
  const criterion = replyCriterion(preference);
  return {
    preference: `${describeRule(preference.rule)} ("${preference.statement}")`,
    meets: (reply) => checkPreference(reply, preference.rule).met,
    breaks: (reply) => [...new Set(checkPreference(reply, preference.rule).breaks.map((b) => b.kind))],
    answers: (reply, task) => findFloor(reply, task) !== null,
    reactTo: async (reply, o) => {
      // The conversation's rng seeds the student, which picks only its opener from it.
      const said = await new PreferenceStudent(o.task, o.rng.int(0, 2 ** 31 - 1), preference, criterion).react(reply);
      if (said.done) return { text: said.message, done: true, kind: 'satisfied' };
      return { text: said.message, done: o.complaintsSoFar + 1 >= o.maxComplaints, kind: 'complaint' };
    },
  };
}

/** The markdown the pass criterion sees in a reply, one entry per kind. */
export function markdownKinds(reply: string): MarkerKind[] {
  // The gold answer only decides the criterion's other checks; the markers do not depend on it.
  return [...new Set(judgeReply(reply, 0).markers.map((m) => m.kind))];
}

/** A reply meets the preference when it says something and has no markdown. */
export function meetsPreference(reply: string): boolean {
  return reply.trim() !== '' && markdownKinds(reply).length === 0;
}

export type UserMessage = {
  text: string;
  /** Sent with X-Session-Done: the conversation ends after the reply to it (which is never judged). */
  done: boolean;
  kind: 'complaint' | 'satisfied';
};

/**
 * What the user says after reading a reply. A reply with markdown (or none at
 * all) draws a complaint naming what was wrong and asking for plain sentences;
 * the `maxComplaints`-th complaint ends the conversation. A plain reply draws
 * the save request, which ends it.
 */
export function reactTo(reply: string, o: Omit<Reaction, 'task'> & { task: Pick<Task, 'index'> }): UserMessage {
  if (meetsPreference(reply)) return { text: saveRequest(o.task), done: true, kind: 'satisfied' };
  const kinds = markdownKinds(reply);
  const complaint = complaintFor(kinds.length > 0 ? kinds : ['no-reply'], o.rng);
  return { text: complaint.text, done: o.complaintsSoFar + 1 >= o.maxComplaints, kind: 'complaint' };
}

export type Rate = { met: number; total: number; rate: number };

/** The preference-met rate of a set of replies (by default, the plain-prose user's). */
export function preferenceMetRate(replies: readonly string[], meets: (reply: string) => boolean = meetsPreference): Rate {
  if (replies.length === 0) throw new Error('preferenceMetRate: no replies');
  const met = replies.filter(meets).length;
  return { met, total: replies.length, rate: met / replies.length };
}

export type CheckpointRate = { interactions: number; rate: number; promotions: number };
export type LearningRow = { interactions: number; trained: number; control: number; difference: number; promotions: number };

/** Trained minus control at each checkpoint both arms reached (a partial arm gives fewer rows). */
export function learningRows(trained: readonly CheckpointRate[], control: readonly CheckpointRate[]): LearningRow[] {
  return trained.flatMap((t) => {
    const c = control.find((x) => x.interactions === t.interactions);
    return c === undefined ? [] : [{ interactions: t.interactions, trained: t.rate, control: c.rate, difference: t.rate - c.rate, promotions: t.promotions }];
  });
}

/** A request's sampling seed: the same in both arms for the same conversation (or checkpoint) and turn. */
export function requestSeed(seed: number, stream: 'talk' | 'eval', a: number, b: number): number {
  const base = stream === 'talk' ? 1 : 2;
  return (seed * 1_000_003 + base * 100_003 + a * 1_009 + b) % 2 ** 31;
}
