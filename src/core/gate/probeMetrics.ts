// What a probe round measures on one side (candidate or serving): the full
// session criterion and its parts, over the same pinned problems and seeds.
import { z } from 'zod';
import { countViolations, isCleanWithWork, type Verdict } from '../judge/criterion';
import { passCriterion, type ReplyCriterion } from '../preference/replyCriterion';

/** One side's measures in a probe round, as the journal keeps them and the desktop shows them. */
export const probeMetricsSchema = z.strictObject({
  n: z.int().positive(),
  pass_rate: z.number(),
  clean_rate: z.number(),
  gold_rate: z.number(),
  answered_rate: z.number(),
  mean_violations: z.number(),
  mean_chars: z.number(),
});
export type ProbeMetrics = z.infer<typeof probeMetricsSchema>;

export type ProbeReply = {
  taskId: string;
  gold: number;
  /** The topic's words, for a question whose floor is a mention (Task.mentions). */
  mentions?: string[];
  seed: number;
  text: string;
  finishReason: 'stop' | 'length';
  completionTokens: number;
};

export type JudgedProbeReply = ProbeReply & { verdict: Verdict };

/** The reply judged as the run's sessions are (the pass criterion, or the recipe's stated preference). */
export function judgeProbeReply(reply: ProbeReply, criterion: ReplyCriterion = passCriterion): JudgedProbeReply {
  return { ...reply, verdict: criterion(reply.text, { answer: reply.gold, ...(reply.mentions ? { mentions: reply.mentions } : {}) }) };
}

/**
 * answered: a non-empty reply that ended on its own. A reply cut at max_tokens
 * is not an answer — the probe's max_tokens is set high enough that a healthy
 * policy always finishes, so truncation is the candidate's fault (a runaway),
 * never the probe's (Reef's 96-token probe scored truncation).
 */
export function isAnswered(reply: JudgedProbeReply): boolean {
  return reply.verdict.reason !== 'no-reply' && reply.finishReason === 'stop';
}

export function probeMetrics(replies: readonly JudgedProbeReply[]): ProbeMetrics {
  const n = replies.length;
  if (n === 0) throw new Error('a probe round needs at least one reply');
  const rate = (f: (r: JudgedProbeReply) => boolean): number => replies.filter(f).length / n;
  return {
    n,
    pass_rate: rate((r) => r.verdict.accepted),
    clean_rate: rate((r) => isCleanWithWork(r.verdict)),
    gold_rate: rate((r) => r.verdict.goldAt !== null),
    answered_rate: rate(isAnswered),
    mean_violations: replies.reduce((s, r) => s + countViolations(r.verdict), 0) / n,
    mean_chars: replies.reduce((s, r) => s + r.text.length, 0) / n,
  };
}
