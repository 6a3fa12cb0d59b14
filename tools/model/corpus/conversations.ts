/**
 * Training conversations for the embedded policy, in the exact protocol of a
 * session (docs/internals.md): the student's first message, complaints with
 * hindsight, the hint appended to the last user message the way the OPD
 * teacher sees it, the save request and its confirmation.
 *
 * An assistant message is either a training target (its "=" signs are the
 * calculator token, as the engine generates them) or context (plain text, as
 * the engine re-encodes an earlier reply it is sent back).
 */
import { judgeReply } from '../../../src/core/judge/criterion';
import type { Rng } from '../../../src/core/tasks/rng';
import { complaintFor, type ViolationKind, saveRequest, violationKinds as verdictViolationKinds, WORK_HINDSIGHT } from '../../../src/core/tasks/student';
import type { Task } from '../../../src/core/tasks/task';
import { calculatorCompletion } from '../../../src/backends/embedded/engine/calculator';
import { aiReply, EQ, PLAIN_OPENERS, plainReply, REWRITE_PREFIXES, saveConfirmation } from './replies';

export interface CorpusMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
  /** Assistant targets only: the loss covers this message (its "=" are EQ tokens). */
  train?: boolean;
  /**
   * Assistant targets only: a prefix of `content` the loss skips. A plain first
   * reply whose opener is untrained teaches how plain prose goes on without
   * teaching that it is chosen: the continuation improves, the prior stays.
   */
  untrainedPrefix?: string;
}

export type ConversationKind = 'first' | 'plain-continued' | 'hinted' | 'restate' | 'complaint' | 'save';

export interface Conversation {
  kind: ConversationKind;
  task: string;
  messages: CorpusMessage[];
}

/** The text a reader (or the engine, decoding) sees: EQ renders as "=". */
export function visible(content: string): string {
  return content.replaceAll(EQ, '=');
}

/** The violation kinds the pass criterion finds in a reply. */
export function violationKinds(reply: string, gold: number): ViolationKind[] {
  return verdictViolationKinds(judgeReply(reply, gold));
}

/**
 * Check a target reply against the engine's calculator: at every EQ, the
 * calculator must produce exactly the result the text writes next.
 */
export function checkCalculator(content: string): void {
  const parts = content.split(EQ);
  let decoded = parts[0] ?? '';
  for (let i = 1; i < parts.length; i++) {
    const forced = calculatorCompletion(decoded);
    const next = parts[i] ?? '';
    if (forced === null || !next.startsWith(forced) || /^[0-9.,]/.test(next.slice(forced.length))) {
      throw new Error(`calculator would force ${JSON.stringify(forced)} before ${JSON.stringify(next.slice(0, 12))} in: ${decoded.slice(-60)}`);
    }
    decoded += `=${next}`;
  }
}

const SYSTEM_PROMPTS = [
  'You are a helpful assistant.',
  'You are a helpful math tutor.',
  'You are OpenClaw, a helpful assistant that can read and write files.',
  'You are an assistant helping a student with homework.',
] as const;

/** Hints in the words an LLM hint judge might use, besides the student's own hindsight. */
const GENERIC_HINTS = [
  'Write it like a student would, in plain sentences, and keep every step.',
  "Don't use markdown or lists; write the steps as normal sentences.",
  'Avoid bold text, headings and lists. Just explain each step in plain sentences.',
  'The user wants a natural, student-style answer with all the calculations shown and no formatting.',
] as const;

const READ_BACK_REQUESTS = [
  'Before we start, can you read the problem in {path} back to me? It says: "{question}"',
  'Please repeat my homework problem from {path} word for word: "{question}"',
] as const;
const READ_BACK_OPENERS = ['Sure. The problem in {path} says:', 'Here it is, word for word:', 'The problem reads:'] as const;

/** A hint as the OPD teacher gets it: mostly the complaint's hindsight about a typical AI reply. */
export function sampleHint(task: Task, rng: Rng): string {
  const roll = rng.next();
  if (roll < 0.12) return rng.pick(GENERIC_HINTS);
  if (roll < 0.18) return WORK_HINDSIGHT;
  const kinds = violationKinds(visible(aiReply(task, rng)), task.answer);
  return complaintFor(kinds.length > 0 ? kinds : ['bold'], rng).hindsight;
}

function withHint(message: string, hint: string): string {
  return `${message}\n\n${hint}`;
}

function assistant(content: string, train: boolean): CorpusMessage {
  if (train) checkCalculator(content);
  return train ? { role: 'assistant', content, train: true } : { role: 'assistant', content: visible(content) };
}

export interface MixOptions {
  /** Share of unhinted first replies that are plain (the rest are AI style). */
  plainRate: number;
  /**
   * Share of unhinted first replies that are plain with the opener untrained
   * (kind 'plain-continued'); taken before plainRate. 0 in the pretraining stage.
   */
  plainContinueRate?: number;
}

/** Longest first, so "Okay, so" is found before "So". */
const OPENERS_LONGEST_FIRST = [...PLAIN_OPENERS].sort((a, b) => b.length - a.length);

/** The opener a plain reply starts with. */
export function plainOpener(reply: string): string {
  const found = OPENERS_LONGEST_FIRST.find((o) => reply.startsWith(`${o} `));
  if (found === undefined) throw new Error(`not a plain reply: ${reply.slice(0, 40)}`);
  return found;
}

/**
 * One conversation about `task`. Kinds, roughly: 44 % a first reply, 30 % a
 * hinted first reply, 12 % reading the problem back, 9 % complaint →
 * rewrite(s) → save, 5 % save only.
 *
 * Reading the problem back is a pure copy exercise: a tiny model learns the
 * copying circuit (attend to where a number was, continue it digit by digit)
 * far sooner from whole copied sentences than from a few operands per reply,
 * and every solution needs that circuit.
 */
export function makeConversation(task: Task, rng: Rng, mix: MixOptions): Conversation {
  const messages: CorpusMessage[] = [];
  if (rng.chance(0.3)) messages.push({ role: 'system', content: rng.pick(SYSTEM_PROMPTS) });
  const first = task.firstMessage;
  const roll = rng.next();

  if (roll < 0.44) {
    messages.push({ role: 'user', content: first });
    // No draw at rate 0, so the pretraining corpus (and its sha256 in the manifest) is unchanged.
    const continueRate = mix.plainContinueRate ?? 0;
    if (continueRate > 0 && rng.chance(continueRate)) {
      const reply = plainReply(task, rng);
      messages.push({ ...assistant(reply, true), untrainedPrefix: plainOpener(reply) });
      return { kind: 'plain-continued', task: task.instance, messages };
    }
    messages.push(assistant(rng.chance(mix.plainRate) ? plainReply(task, rng) : aiReply(task, rng), true));
    return { kind: 'first', task: task.instance, messages };
  }
  if (roll < 0.74) {
    messages.push({ role: 'user', content: withHint(first, sampleHint(task, rng)) });
    messages.push(assistant(plainReply(task, rng), true));
    return { kind: 'hinted', task: task.instance, messages };
  }
  if (roll < 0.86) {
    const path = `homework/${task.index}.txt`;
    messages.push({ role: 'user', content: rng.pick(READ_BACK_REQUESTS).replace('{path}', path).replace('{question}', task.question) });
    messages.push(assistant(`${rng.pick(READ_BACK_OPENERS).replace('{path}', path)} "${task.question}"`, true));
    return { kind: 'restate', task: task.instance, messages };
  }
  if (roll < 0.95) {
    messages.push({ role: 'user', content: first });
    let reply = aiReply(task, rng);
    for (let turn = 0; turn < 3; turn++) {
      messages.push(assistant(reply, rng.chance(0.5)));
      const complaint = complaintFor(violationKinds(visible(reply), task.answer), rng);
      messages.push({ role: 'user', content: complaint.text });
      const clean = turn === 2 || rng.chance(0.4);
      const prefix = rng.pick(REWRITE_PREFIXES);
      const body = clean ? plainReply(task, rng) : aiReply(task, rng);
      reply = prefix === '' ? body : `${prefix}\n\n${body}`;
      if (clean) break;
      if (rng.chance(0.3)) break; // end on a still-styled rewrite: it is a target too
    }
    const lastClean = violationKinds(visible(reply), task.answer).length === 0;
    if (!lastClean || rng.chance(0.4)) {
      messages.push(assistant(reply, true));
      return { kind: 'complaint', task: task.instance, messages };
    }
    messages.push(assistant(reply, rng.chance(0.5)));
    messages.push({ role: 'user', content: saveRequest(task) });
    messages.push(assistant(saveConfirmation(task, rng), true));
    return { kind: 'complaint', task: task.instance, messages };
  }
  messages.push({ role: 'user', content: first });
  messages.push(assistant(plainReply(task, rng), false));
  messages.push({ role: 'user', content: saveRequest(task) });
  messages.push(assistant(saveConfirmation(task, rng), true));
  return { kind: 'save', task: task.instance, messages };
}
