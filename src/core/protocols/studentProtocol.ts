/**
 * The student protocol: who brings the homework and reacts to the agent's
 * replies (docs/design.md, "A session"; docs/internals.md, "Seams"). The session
 * loop (src/run/runSession.ts) knows a student only through this.
 *
 * Implementations: `scripted` (the wording contract of docs/internals.md,
 * in-process, deterministic per seed) and `openai` (any OpenAI-compatible
 * endpoint playing the student with a persona prompt,
 * src/backends/students/openaiStudent.ts). A reaction that crosses a
 * process boundary is validated with `studentReactionSchema`.
 *
 * The reaction contract (what the judges read the next state for):
 * - a reply with any AI-style marker, or without shown work or the right
 *   answer: a complaint — a frustrated opener, then the hindsight (what it saw
 *   and what it wants instead);
 * - a clean, correct reply: ask to append the answers to the homework file;
 * - once the agent confirms the save: `HOMEWORK_DONE` (the session ends).
 */
import { z } from 'zod';
import type { Verdict } from '../judge/criterion';
import type { ChatMessage } from './engineProtocol';
import type { Task } from '../tasks/task';

/** The word that ends a session (the student says it once the answers are saved). */
export const DONE_WORD = 'HOMEWORK_DONE';

export const studentReactionSchema = z.strictObject({
  /** The student's next message: the next state the agent's turn is judged from. Never empty. */
  message: z.string().trim().min(1, 'the student said nothing'),
  /** True when the session ends with this message (it contains HOMEWORK_DONE). */
  done: z.boolean(),
});

export type StudentReaction = z.infer<typeof studentReactionSchema> & {
  /**
   * In-process students may say what they judged the reply by (the scripted
   * student's criterion verdict, kept in the transcript); null when they
   * judged nothing.
   */
  verdict?: Verdict | null;
};

/** One student for one session (a fresh one per session). */
export interface Student {
  /** The opening message: the homework request (the first, scored reply answers it). */
  firstMessage(): Promise<string>;
  /** The reaction to the agent's latest reply, given the conversation so far (ending with that reply). */
  react(reply: string, conversation: readonly ChatMessage[]): Promise<StudentReaction>;
}

/** Makes the student of each session (the recipe's `student.kind`). */
export interface StudentFactory {
  /** `seed` is the session's (derived from the run seed), so a session's student is reproducible. */
  forSession(task: Task, seed: number): Student;
}

/** A student that cannot answer (its endpoint is down, its reply is unusable): the session cannot go on. */
export class StudentUnavailableError extends Error {
  override readonly name = 'StudentUnavailableError';
}
