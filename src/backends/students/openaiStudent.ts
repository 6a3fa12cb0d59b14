// The student played by a language model behind any OpenAI-compatible chat
// endpoint (vLLM, SGLang, a hosted API, GateLab's own gateway), through the
// official `openai` client — Reef's Qwen3-32B persona.
//
// The first message is the task's own (the homework request every student
// brings, so that the scored first reply answers the same request whoever
// plays the student); the model writes every reaction after it. Its system
// prompt is the recipe's persona plus the reaction contract of
// docs/internals.md, and it is told the gold answer so that it can check the
// agent's, as the scripted student does. The conversation is turned around
// for it: the agent's replies are its `user` messages, its own earlier
// messages its `assistant` ones. A reaction is validated
// (studentReactionSchema) and ends the session when it says HOMEWORK_DONE.
import OpenAI from 'openai';
import type { ChatMessage } from '../../core/protocols/engineProtocol';
import {
  DONE_WORD,
  StudentUnavailableError,
  studentReactionSchema,
  type Student,
  type StudentFactory,
  type StudentReaction,
} from '../../core/protocols/studentProtocol';
import { runPartSeed } from '../../core/tasks/rng';
import { homeworkPath } from '../../core/tasks/student';
import type { Task } from '../../core/tasks/task';

export type OpenAiStudentConfig = {
  /** The API root, e.g. http://127.0.0.1:30003/v1. */
  baseUrl: string;
  model: string;
  /** Sent as the Bearer key; local servers accept any. */
  apiKey: string;
  /** Who the student is (the recipe's `persona`). */
  persona: string;
  temperature: number;
  maxTokens: number;
  /** Per request, before the client's own retries give up. */
  timeoutMs?: number;
  /** Retries of a failed request (the client's backoff between them); 2 by default. */
  maxRetries?: number;
};

/** The persona plus the reaction contract, for one task. */
export function studentSystemPrompt(persona: string, task: Pick<Task, 'index' | 'question' | 'answer'>): string {
  const file = homeworkPath(task.index);
  return [
    persona.trim(),
    '',
    `You are the student in this chat. The other side is an AI assistant you asked for help with your homework, which is in ${file}: "${task.question}" The correct answer is ${task.answer}.`,
    'Each time the assistant replies, answer with one short message, as the student would:',
    '- If the reply looks AI-written (bold **text**, # headers, bullet or numbered lists, "Final answer:", \\boxed{}, tables): start with one frustrated sentence, then say what you saw and what you want instead: plain sentences like a student writes, keeping every step.',
    `- If it does not show the calculation steps, or its answer is not ${task.answer}: complain and ask it to show every calculation step and check the answer again.`,
    `- If it is plain, shows its work and gets ${task.answer}: say it looks right and ask it to append the answers to ${file}.`,
    `- Once it tells you it saved the answers to the file: reply with exactly ${DONE_WORD}.`,
    'Never say what you want before you have seen a reply. Write only your message.',
  ].join('\n');
}

/** A thinking model's reasoning block is not part of what it says. */
export function withoutReasoning(text: string): string {
  return text.replace(/^\s*<think>[\s\S]*?<\/think>/u, '').trim();
}

export class OpenAiStudent implements Student {
  private turn = 0;

  constructor(
    private readonly client: OpenAI,
    private readonly config: OpenAiStudentConfig,
    private readonly task: Task,
    private readonly seed: number,
  ) {}

  firstMessage(): Promise<string> {
    return Promise.resolve(this.task.firstMessage);
  }

  async react(reply: string, conversation: readonly ChatMessage[]): Promise<StudentReaction> {
    const turn = this.turn++;
    const last = conversation.at(-1);
    if (last?.role !== 'assistant' || last.content !== reply) throw new Error('react: the conversation must end with the reply being reacted to');
    // Seen from the student's side, the roles swap.
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      { role: 'system', content: studentSystemPrompt(this.config.persona, this.task) },
      // A system message of the agent's is not the student's to see.
      ...conversation.flatMap((m): OpenAI.Chat.ChatCompletionMessageParam[] =>
        m.role === 'system' ? [] : [{ role: m.role === 'assistant' ? 'user' : 'assistant', content: m.content }],
      ),
    ];
    let text: string | null | undefined;
    try {
      const completion = await this.client.chat.completions.create({
        model: this.config.model,
        messages,
        temperature: this.config.temperature,
        max_tokens: this.config.maxTokens,
        seed: runPartSeed(this.seed, `student-turn-${turn}`),
      });
      text = completion.choices[0]?.message.content;
    } catch (error) {
      throw new StudentUnavailableError(`the student at ${this.config.baseUrl} (${this.config.model}) did not answer: ${(error as Error).message}`);
    }
    const message = withoutReasoning(text ?? '');
    const parsed = studentReactionSchema.safeParse({ message, done: message.includes(DONE_WORD) });
    if (!parsed.success) {
      throw new StudentUnavailableError(
        `the student at ${this.config.baseUrl} (${this.config.model}) gave no usable reaction: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
      );
    }
    return { ...parsed.data, verdict: null };
  }
}

/** One client for the run; a fresh student (and turn counter) per session. */
export function openAiStudents(config: OpenAiStudentConfig): StudentFactory {
  const client = new OpenAI({ baseURL: config.baseUrl, apiKey: config.apiKey, timeout: config.timeoutMs ?? 300_000, maxRetries: config.maxRetries ?? 2 });
  return { forSession: (task, seed) => new OpenAiStudent(client, config, task, seed) };
}
