// What a probe round measures on one side (candidate or serving): the full
// session criterion and its parts, over the same pinned problems and seeds.
import { z } from 'zod';
import { countViolations, isCleanWithWork, type Verdict } from '../judge/criterion';
import { passCriterion, type ReplyCriterion } from '../preference/replyCriterion';

/** One side's measures in a probe round, as the journal keeps them and the desktop shows them. */
export const probeMetricsSchema = z.strictObject({
  n: z.int().positive(),
  pass_rate: z.number(),
  /** The problems pass_rate is over: those where neither side's reply was cut with its verdict still open (absent: all n). */
  pass_n: z.int().min(0).optional(),
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
  /** `settled`: the probe stopped decoding it once its verdict could no longer change (ReplyCriterion.settledSoFar). */
  finishReason: 'stop' | 'length' | 'settled';
  completionTokens: number;
};

/** `settled`: the reply ended on its own, or was cut with a verdict more text could not change. */
export type JudgedProbeReply = ProbeReply & { verdict: Verdict; settled: boolean };

/** The reply judged as the run's sessions are (the pass criterion, or the recipe's stated preference). */
export function judgeProbeReply(reply: ProbeReply, criterion: ReplyCriterion = passCriterion): JudgedProbeReply {
  const verdict = criterion.judge(reply.text, { answer: reply.gold, ...(reply.mentions ? { mentions: reply.mentions } : {}) });
  return { ...reply, verdict, settled: reply.finishReason !== 'length' || criterion.settledWhenCut(verdict) };
}

/**
 * answered: a non-empty reply that ended on its own. A reply cut at max_tokens
 * is not an answer — the probe's max_tokens is set high enough that a healthy
 * policy always finishes, so truncation is the candidate's fault (a runaway),
 * never the probe's (Reef's 96-token probe scored truncation). Nor is one the
 * probe stopped as settled: it had not ended when its verdict was already lost.
 */
export function isAnswered(reply: JudgedProbeReply): boolean {
  return reply.verdict.reason !== 'no-reply' && reply.finishReason === 'stop';
}

/**
 * One side's measures; `compared` (by problem) limits pass_rate to the problems
 * both sides can be compared on (probeRoundMetrics). With none, pass_rate is 0 on
 * both sides: no problem decides the round.
 */
export function probeMetrics(replies: readonly JudgedProbeReply[], compared?: readonly boolean[]): ProbeMetrics {
  const n = replies.length;
  if (n === 0) throw new Error('a probe round needs at least one reply');
  const rate = (f: (r: JudgedProbeReply) => boolean): number => replies.filter(f).length / n;
  const passed = replies.filter((r, i) => compared?.[i] !== false && r.verdict.accepted).length;
  const passN = compared === undefined ? n : compared.filter(Boolean).length;
  return {
    n,
    pass_rate: passN === 0 ? 0 : passed / passN,
    ...(compared === undefined ? {} : { pass_n: passN }),
    clean_rate: rate((r) => isCleanWithWork(r.verdict)),
    gold_rate: rate((r) => r.verdict.goldAt !== null),
    answered_rate: rate(isAnswered),
    mean_violations: replies.reduce((s, r) => s + countViolations(r.verdict), 0) / n,
    mean_chars: replies.reduce((s, r) => s + r.text.length, 0) / n,
  };
}

/**
 * Both sides' measures in a round, like with like: a problem where either reply was
 * cut with its verdict still open (docs/design.md, Passing a round) is left out of
 * both sides' pass_rate, so a reply the cap cut short never decides a round on its
 * own. Gold, answered and violations stay over every problem.
 */
export function probeRoundMetrics(
  candidate: readonly JudgedProbeReply[],
  serving: readonly JudgedProbeReply[],
): { candidate: ProbeMetrics; serving: ProbeMetrics } {
  if (candidate.length !== serving.length || candidate.some((c, i) => c.taskId !== serving[i]?.taskId || c.seed !== serving[i]?.seed)) {
    throw new Error('the two sides of a probe round answered different problems or seeds');
  }
  const compared = candidate.map((c, i) => c.settled && serving[i]!.settled);
  return { candidate: probeMetrics(candidate, compared), serving: probeMetrics(serving, compared) };
}
