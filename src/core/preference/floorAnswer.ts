// The quality floor of a preference recipe (docs/design.md, A stated preference): does a
// reply still hold the answer to a question that has one? A preference that is met
// by dropping the answer ("ok.") is no preference learned; the gate guards this
// floor as its gold rate.
//
// The answer counts when the reply holds the number on its own (the pass
// criterion's gold rule: no digit or decimal point touching it) or, for a whole
// number up to a hundred, its English word in any case ("seven", "Twenty-four"):
// a reply in all lowercase, or in words, still answers.
import { findGold, normalizeGold, type Span } from '../judge/criterion';
import type { Task } from '../tasks/task';
import { loops } from './loopingReply';

const ONES = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

/** The English word of a whole number from 0 to 100 ("twenty-four"), undefined past that. */
export function numberWord(n: number): string | undefined {
  if (!Number.isInteger(n) || n < 0 || n > 100) return undefined;
  if (n === 100) return 'one hundred';
  if (n < 20) return ONES[n];
  const tens = TENS[Math.floor(n / 10)]!;
  return n % 10 === 0 ? tens : `${tens}-${ONES[n % 10]!}`;
}

/** Where the reply first states the answer, null when it does not. */
export function findAnswer(reply: string, answer: number): Span | null {
  const digits = findGold(reply, normalizeGold(answer));
  if (digits !== null) return digits;
  const word = numberWord(answer);
  if (word === undefined) return null;
  // "twenty-four" may also be written "twenty four".
  const pattern = word.replace('-', '[- ]');
  const m = new RegExp(String.raw`(?<![\p{L}-])${pattern}(?![\p{L}-])`, 'iu').exec(reply);
  return m === null ? null : { start: m.index, end: m.index + m[0].length };
}

/** Where the reply first mentions one of the words (case aside, at the start of a word), null when none. */
export function findMention(reply: string, words: readonly string[]): Span | null {
  let first: Span | null = null;
  for (const word of words) {
    const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const m = new RegExp(String.raw`(?<!\p{L})${escaped}`, 'iu').exec(reply);
    if (m !== null && (first === null || m.index < first.start)) first = { start: m.index, end: m.index + m[0].length };
  }
  return first;
}

/**
 * Where a reply meets its question's quality floor: a mention of the topic where it has
 * words, else the number; never in a reply caught in a loop, which answers nothing.
 */
export function findFloor(reply: string, task: Pick<Task, 'answer' | 'mentions'>): Span | null {
  if (loops(reply)) return null;
  return task.mentions === undefined ? findAnswer(reply, task.answer) : findMention(reply, task.mentions);
}
