import { z } from 'zod';

/**
 * One step of a worked solution: an arithmetic expression over the problem's
 * numbers and earlier results, its value, a short label (for headings and
 * lists) and a sentence with `{eq}` where the equation goes (for prose).
 */
export const StepSchema = z.object({
  expr: z.string().min(1),
  result: z.number(),
  label: z.string(),
  text: z.string(),
});
export type Step = z.infer<typeof StepSchema>;

export const TaskSchema = z.object({
  /** Stable id, e.g. `hw-07` or `probe-03`. */
  id: z.string().min(1),
  /** The N of `homework/N.txt` in the student's first message. */
  index: z.number().int().min(1),
  /** Template id (`gsm8k` for loaded real problems). */
  template: z.string().min(1),
  /** Template + numbers, independent of names and wording: the unit of disjointness. */
  instance: z.string().min(1),
  question: z.string().min(1),
  steps: z.array(StepSchema),
  /** The gold answer; for generated tasks, the value of the last step. */
  answer: z.number(),
  /** A sentence stating the answer with `{a}` where the number goes ('' when unknown). */
  answerText: z.string(),
  /** The student's first message for this task. */
  firstMessage: z.string().min(1),
  /**
   * A question without a number for an answer: the words a reply on its topic
   * mentions, any one of them (the quality floor; docs/design.md, A stated preference).
   */
  mentions: z.array(z.string().min(1)).min(1).optional(),
});
export type Task = z.infer<typeof TaskSchema>;

export const TaskSetSchema = z.object({
  version: z.literal(1),
  kind: z.enum(['homework', 'probe']),
  seed: z.number().int(),
  tasks: z.array(TaskSchema).min(1),
});
export type TaskSet = z.infer<typeof TaskSetSchema>;

/** Parse a task set read from disk; throws a message naming the bad field. */
export function parseTaskSet(raw: unknown, source: string): TaskSet {
  const parsed = TaskSetSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? issue.path.join('.') : '?';
    throw new Error(`${source}: invalid task set at "${where}": ${issue?.message ?? 'unknown error'}`);
  }
  return parsed.data;
}
