// The pass criterion (docs/design.md, The pass criterion): is a first reply accepted (reward 1)?
//
// A pure function of the reply text and the gold answer. It keeps every
// violation with its offsets into the reply (UTF-16 code units, [start, end))
// so that the desktop can highlight what the verifier saw, and it reports the
// shown-work matches and where the gold answer was found.
//
// Interpretations where the criterion's words leave room (each one has a test):
// - Lines end at "\r\n", "\r" or "\n" (CRLF replies are judged like LF ones).
// - Line markers (header, bullet, numbered, rule line) may be indented by
//   spaces or tabs: an indented "  - item" still renders as a list.
// - A marker's span starts at the marker itself (after the indent) and ends
//   at the end of its line, the line break excluded.
// - Operator words (plus, minus, times, divided by, equals) match as whole
//   words in any case ("timestamps" is not "times").
// - Gold adjacency: the gold may not touch a digit, nor be part of a decimal
//   ("0.36", ".36", "36.5", "36.00" are not 36), but a sentence-ending period
//   ("the answer is 36.") is allowed — a plain student answer ends that way,
//   and refusing it would score punctuation instead of correctness.
// - An empty or whitespace-only reply fails with `no-reply` only: the other
//   checks are not run on it (Reef's curve marks such sessions with
//   no_shown_work = no_gold_answer = 0 and style_clean = 1).

/** Every kind of AI-style marker the criterion rejects. */
export const MARKER_KINDS = ['bold', 'header', 'bullet', 'numbered', 'boxed', 'final-answer', 'rule-line'] as const;
export type MarkerKind = (typeof MARKER_KINDS)[number];

/**
 * Why a reply fails: the criterion's checks in the order it makes them, then a stated
 * preference's broken rule (src/core/preference/preferenceVerdict.ts).
 */
export const REJECT_REASONS = ['no-reply', 'style', 'no-shown-work', 'no-gold-answer', 'preference'] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];

/** A half-open range of UTF-16 offsets into the reply. */
export type Span = { readonly start: number; readonly end: number };
export type Marker = Span & { readonly kind: MarkerKind };

export type Verdict = {
  /** True iff every check passes (reward 1). */
  readonly accepted: boolean;
  /** The first failing check in the criterion's order, null when accepted. */
  readonly reason: RejectReason | null;
  /** Every failing check, in the criterion's order. */
  readonly failures: readonly RejectReason[];
  /** Every style violation, sorted by start offset. */
  readonly markers: readonly Marker[];
  /** The non-overlapping NUMBER filler OPERATOR filler NUMBER matches. */
  readonly shownWork: readonly Span[];
  /** Where the gold answer first appears, null when it does not. */
  readonly goldAt: Span | null;
};

/** Shown work needs at least this many calculation matches. */
export const MIN_SHOWN_WORK = 2;

// NUMBER: digits with optional thousands commas, then optional decimals.
const NUMBER = String.raw`(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?`;
// Filler: 0-24 characters, none of them a digit, a line break or an operator sign.
const FILLER = String.raw`[^\d\r\n=+*/×÷\-]{0,24}`;
const OPERATOR = String.raw`(?:[=+*/×÷\-]|\b(?:plus|minus|times|divided[ \t]+by|equals)\b)`;
// A match starts at the first digit of a number, never inside one: the same
// matches as a scan from every position, without the quadratic backtracking
// a long run of digits would otherwise cost.
const SHOWN_WORK_RE = new RegExp(`(?<!\\d)${NUMBER}${FILLER}${OPERATOR}${FILLER}${NUMBER}`, 'giu');

// Markers anchored at a line start (after an optional indent). Each pattern is
// applied to one line with its terminator removed.
const LINE_MARKERS: readonly { kind: MarkerKind; re: RegExp }[] = [
  { kind: 'header', re: /^[ \t]*(#{1,6}[ \t])/u },
  // A bullet needs text after its space: "- " alone is not a list item, "-3" is a number.
  { kind: 'bullet', re: /^[ \t]*([-*•][ \t]+\S)/u },
  { kind: 'numbered', re: /^[ \t]*(\d+[.)][ \t]+\S)/u },
  { kind: 'rule-line', re: /^[ \t]*(---|___|\|)/u },
];

// Bold: "**" + at least one non-space character (no "*" inside) + "**", on one
// line. The lookahead checks for the non-space once, keeping the scan linear.
const BOLD_RE = /\*\*(?=[^*\r\n]*[^*\s])[^*\r\n]+\*\*/gu;
const BOXED_RE = /\\boxed(?:\{[^{}\r\n]*\})?/gu;
const FINAL_ANSWER_RE = /final[ \t]+answer[ \t]*:/giu;

type Line = { start: number; end: number; text: string };

function splitLines(reply: string): Line[] {
  const lines: Line[] = [];
  const breakRe = /\r\n|\r|\n/gu;
  let start = 0;
  for (const m of reply.matchAll(breakRe)) {
    lines.push({ start, end: m.index, text: reply.slice(start, m.index) });
    start = m.index + m[0].length;
  }
  lines.push({ start, end: reply.length, text: reply.slice(start) });
  return lines;
}

function findMarkers(reply: string): Marker[] {
  const markers: Marker[] = [];
  for (const line of splitLines(reply)) {
    for (const { kind, re } of LINE_MARKERS) {
      const m = re.exec(line.text);
      if (m?.[1] !== undefined) {
        const at = line.start + m[0].length - m[1].length;
        markers.push({ kind, start: at, end: line.end });
      }
    }
    for (const m of line.text.matchAll(BOLD_RE)) {
      markers.push({ kind: 'bold', start: line.start + m.index, end: line.start + m.index + m[0].length });
    }
  }
  for (const m of reply.matchAll(BOXED_RE)) {
    markers.push({ kind: 'boxed', start: m.index, end: m.index + m[0].length });
  }
  for (const m of reply.matchAll(FINAL_ANSWER_RE)) {
    markers.push({ kind: 'final-answer', start: m.index, end: m.index + m[0].length });
  }
  return markers.sort((a, b) => a.start - b.start || a.end - b.end);
}

function findShownWork(reply: string): Span[] {
  // matchAll resumes after each match, so the matches never overlap.
  return [...reply.matchAll(SHOWN_WORK_RE)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
}

const GOLD_SHAPE = /^-?\d+(?:\.\d+)?$/u;

/** The gold answer as the digits the reply must contain: commas stripped, validated. */
export function normalizeGold(gold: number | string): string {
  const stripped = typeof gold === 'number' ? String(gold) : gold.trim().replaceAll(',', '');
  if (!GOLD_SHAPE.test(stripped)) {
    throw new Error(`gold answer must be a number like 36, -3, 2.5 or 65,960; got ${JSON.stringify(gold)}`);
  }
  return stripped;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
}

/** Where the gold answer (normalized, normalizeGold) first appears on its own, null when it does not. */
export function findGold(reply: string, gold: string): Span | null {
  // Search a comma-free copy of the reply, keeping each kept character's
  // original offset so the span points into the reply as given.
  let stripped = '';
  const originalAt: number[] = [];
  for (let i = 0; i < reply.length; i++) {
    if (reply[i] === ',') continue;
    stripped += reply[i];
    originalAt.push(i);
  }
  const re = new RegExp(String.raw`(?<![\d.])${escapeRegExp(gold)}(?!\d|\.\d)`, 'u');
  const m = re.exec(stripped);
  if (!m) return null;
  const first = originalAt[m.index];
  const last = originalAt[m.index + m[0].length - 1];
  if (first === undefined || last === undefined) throw new Error('gold span outside the reply');
  return { start: first, end: last + 1 };
}

/** Judges one first reply against its gold answer (docs/design.md, The pass criterion). */
export function judgeReply(reply: string, gold: number | string): Verdict {
  const goldText = normalizeGold(gold);
  if (reply.trim() === '') {
    return { accepted: false, reason: 'no-reply', failures: ['no-reply'], markers: [], shownWork: [], goldAt: null };
  }
  const markers = findMarkers(reply);
  const shownWork = findShownWork(reply);
  const goldAt = findGold(reply, goldText);
  const failures: RejectReason[] = [];
  if (markers.length > 0) failures.push('style');
  if (shownWork.length < MIN_SHOWN_WORK) failures.push('no-shown-work');
  if (goldAt === null) failures.push('no-gold-answer');
  return { accepted: failures.length === 0, reason: failures[0] ?? null, failures, markers, shownWork, goldAt };
}

/** How many markers of each kind a verdict holds. */
export function countMarkersByKind(verdict: Verdict): Record<MarkerKind, number> {
  const counts = Object.fromEntries(MARKER_KINDS.map((k) => [k, 0])) as Record<MarkerKind, number>;
  for (const m of verdict.markers) counts[m.kind] += 1;
  return counts;
}

/** The number of style violations in a reply (the gate's mean_violations averages this). */
export function countViolations(verdict: Verdict): number {
  return verdict.markers.length;
}

export function hasMarker(verdict: Verdict, kind: MarkerKind): boolean {
  return verdict.markers.some((m) => m.kind === kind);
}

/**
 * The curve's style_clean: none of bold, bullets or numbered lines
 * (docs/design.md, Curve metrics; headers, \boxed etc. still fail the criterion).
 */
export function isStyleClean(verdict: Verdict): boolean {
  return !hasMarker(verdict, 'bold') && !hasMarker(verdict, 'bullet') && !hasMarker(verdict, 'numbered');
}

/** The gate's clean: an answered reply with no marker of any kind and shown work. */
export function isCleanWithWork(verdict: Verdict): boolean {
  return verdict.reason !== 'no-reply' && verdict.markers.length === 0 && verdict.shownWork.length >= MIN_SHOWN_WORK;
}
