// A user's stated preference as data (docs/design.md, A stated preference): a rule a
// script checks on a reply, named in the recipe, never in code. Each check keeps
// where the reply breaks the rule (UTF-16 offsets, [start, end)) so the desktop
// can highlight what the verifier saw, as it does for the homework's markers.
//
// Interpretations where a rule's words leave room (each one has a test):
// - An empty or whitespace-only reply never meets a preference (`no-reply`).
// - `lowercase`: any letter that has a lower-case form and is not in it breaks the
//   rule ("Paris", "I", "É"); digits, symbols and scripts without case never do.
// - `max_words`: words are runs of non-space characters; the span covers every
//   word past the limit.
// - `starts_with` / `ends_with`: the phrase is compared without case, after
//   leading (or before trailing) whitespace. When the phrase itself ends in no
//   punctuation, a reply's closing punctuation and quotes after it do not count
//   ("… hope that helps!" ends with "hope that helps").
// - `avoids`: each phrase matches without case, on word boundaries.
// - `no_markdown`: the pass criterion's style markers (src/core/judge/criterion.ts).
import { z } from 'zod';
import { judgeReply } from '../judge/criterion';

const phrase = z.string().trim().min(1, 'the phrase is empty');

export const preferenceRuleSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('lowercase') }).describe('no capital letters anywhere'),
  z.strictObject({ kind: z.literal('max_words'), words: z.int().positive() }).describe('at most `words` words'),
  z.strictObject({ kind: z.literal('no_markdown') }).describe("none of the pass criterion's style markers"),
  z.strictObject({ kind: z.literal('starts_with'), phrase }).describe('the reply opens with the phrase'),
  z.strictObject({ kind: z.literal('ends_with'), phrase }).describe('the reply closes with the phrase'),
  z.strictObject({ kind: z.literal('avoids'), phrases: z.array(phrase).min(1) }).describe('none of the phrases appears'),
]);
export type PreferenceRule = z.infer<typeof preferenceRuleSchema>;

/** Where a reply breaks its rule, one kind per rule. */
export const PREFERENCE_BREAKS = ['no-reply', 'uppercase', 'over-length', 'markdown', 'missing-opening', 'missing-closing', 'avoided-phrase'] as const;
export type PreferenceBreakKind = (typeof PREFERENCE_BREAKS)[number];
export type PreferenceBreak = { readonly kind: PreferenceBreakKind; readonly start: number; readonly end: number };

export type PreferenceCheck = {
  readonly met: boolean;
  /** Every place the reply breaks the rule, sorted by start. */
  readonly breaks: readonly PreferenceBreak[];
};

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');

function uppercaseRuns(reply: string): PreferenceBreak[] {
  // \p{Lu} and \p{Lt}: upper- and title-case letters, in any script that has case.
  return [...reply.matchAll(/[\p{Lu}\p{Lt}]+/gu)].map((m) => ({ kind: 'uppercase' as const, start: m.index, end: m.index + m[0].length }));
}

function overLength(reply: string, words: number): PreferenceBreak[] {
  const all = [...reply.matchAll(/\S+/gu)];
  const first = all[words];
  const last = all.at(-1);
  if (first === undefined || last === undefined) return [];
  return [{ kind: 'over-length', start: first.index, end: last.index + last[0].length }];
}

function missingOpening(reply: string, wanted: string): PreferenceBreak[] {
  const start = reply.length - reply.trimStart().length;
  const opening = reply.slice(start, start + wanted.length);
  if (opening.toLowerCase() === wanted.toLowerCase()) return [];
  return [{ kind: 'missing-opening', start, end: Math.min(reply.length, start + wanted.length) }];
}

/** Punctuation a sentence may end with after the phrase (when the phrase itself ends in none). */
const TRAILING = /[\s.!?…"'”’)\]]*$/u;

function missingClosing(reply: string, wanted: string): PreferenceBreak[] {
  const phraseEndsInPunctuation = TRAILING.exec(wanted)?.[0] !== '';
  const body = phraseEndsInPunctuation ? reply.trimEnd() : reply.replace(TRAILING, '');
  const closing = body.slice(Math.max(0, body.length - wanted.length));
  if (closing.toLowerCase() === wanted.toLowerCase()) return [];
  return [{ kind: 'missing-closing', start: Math.max(0, body.length - wanted.length), end: reply.trimEnd().length }];
}

function avoided(reply: string, phrases: readonly string[]): PreferenceBreak[] {
  return phrases.flatMap((p) =>
    [...reply.matchAll(new RegExp(String.raw`(?<!\w)${escapeRegExp(p.trim())}(?!\w)`, 'giu'))].map((m) => ({
      kind: 'avoided-phrase' as const,
      start: m.index,
      end: m.index + m[0].length,
    })),
  );
}

function markdown(reply: string): PreferenceBreak[] {
  // The markers do not depend on the gold answer; 0 only satisfies the signature.
  return judgeReply(reply, 0).markers.map((m) => ({ kind: 'markdown' as const, start: m.start, end: m.end }));
}

function breaksOf(reply: string, rule: PreferenceRule): PreferenceBreak[] {
  switch (rule.kind) {
    case 'lowercase':
      return uppercaseRuns(reply);
    case 'max_words':
      return overLength(reply, rule.words);
    case 'no_markdown':
      return markdown(reply);
    case 'starts_with':
      return missingOpening(reply, rule.phrase.trim());
    case 'ends_with':
      return missingClosing(reply, rule.phrase.trim());
    case 'avoids':
      return avoided(reply, rule.phrases);
  }
}

/** Does the reply meet the preference, and where does it break it? */
export function checkPreference(reply: string, rule: PreferenceRule): PreferenceCheck {
  if (reply.trim() === '') return { met: false, breaks: [{ kind: 'no-reply', start: 0, end: reply.length }] };
  const breaks = breaksOf(reply, rule).sort((a, b) => a.start - b.start || a.end - b.end);
  return { met: breaks.length === 0, breaks };
}

/**
 * How much of a reply breaks the rule, in characters (the spans of its breaks):
 * what the reward-inverted bad candidate trains toward under a stated preference.
 */
export function breakExtent(reply: string, rule: PreferenceRule): number {
  return checkPreference(reply, rule).breaks.reduce((n, b) => n + (b.end - b.start), 0);
}

/** The rule in a few words, for tables and the desktop. */
export function describeRule(rule: PreferenceRule): string {
  switch (rule.kind) {
    case 'lowercase':
      return 'all lowercase';
    case 'max_words':
      return `at most ${rule.words} words`;
    case 'no_markdown':
      return 'no markdown';
    case 'starts_with':
      return `starts with "${rule.phrase}"`;
    case 'ends_with':
      return `ends with "${rule.phrase}"`;
    case 'avoids':
      return `never says ${rule.phrases.map((p) => `"${p}"`).join(', ')}`;
  }
}

/**
 * A preference as a recipe (or live mode) states it: the rule a script checks and
 * the sentence the user says it in, which is also the hindsight hint (longer than
 * the hint judge's 10 characters, or it would never be accepted as one).
 */
export const statedPreferenceSchema = z.strictObject({
  rule: preferenceRuleSchema,
  statement: z.string().trim().min(11, 'the statement is the hint: more than 10 characters'),
});
export type StatedPreference = z.infer<typeof statedPreferenceSchema>;
