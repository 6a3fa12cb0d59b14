/**
 * bench:personalization's scripted user and its arithmetic (pure).
 *
 * The user is the homework student of the embedded recipe with one stated
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
import { judgeReply, type MarkerKind } from '../src/core/judge/criterion';
import type { Rng } from '../src/core/tasks/rng';
import { complaintFor, saveRequest } from '../src/core/tasks/student';
import type { Task } from '../src/core/tasks/task';

export const PREFERENCE = 'plain prose, no markdown (no bold, headings, bullet or numbered lists, boxed answers or tables)';

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
export function reactTo(reply: string, o: { task: Pick<Task, 'index'>; complaintsSoFar: number; maxComplaints: number; rng: Rng }): UserMessage {
  if (meetsPreference(reply)) return { text: saveRequest(o.task), done: true, kind: 'satisfied' };
  const kinds = markdownKinds(reply);
  const complaint = complaintFor(kinds.length > 0 ? kinds : ['no-reply'], o.rng);
  return { text: complaint.text, done: o.complaintsSoFar + 1 >= o.maxComplaints, kind: 'complaint' };
}

export type Rate = { met: number; total: number; rate: number };

/** The preference-met rate of a set of replies. */
export function preferenceMetRate(replies: readonly string[]): Rate {
  if (replies.length === 0) throw new Error('preferenceMetRate: no replies');
  const met = replies.filter(meetsPreference).length;
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
