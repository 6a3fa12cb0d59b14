// A reply caught in a loop ("A desert is a desert is a desert is …") does not answer its
// question, even when it names the topic (docs/design.md, A stated preference): the floor
// counts it as missed. Measured on SmolLM2's probe replies (bench:recipe runs): a
// reward-inverted adapter at update norm 24 looped on 2–5 of 8 replies a round while it
// named the topic on 22 of 24; the base looped on none of 96, the versions the runs
// promoted on 26 of 840.
//
// The check reads a fixed window, the reply's first words, so that a reply decoded past the
// window has its floor for good and the probe may stop it (docs/design.md, Probe rounds).

/** The window the loop check reads, in words. */
export const LOOP_WINDOW_WORDS = 30;
/** A loop: a phrase of this many words … */
const PHRASE_WORDS = 3;
/** … said this many times within the window. */
const LOOP_REPEATS = 3;

/** The reply's words, lower-cased, with inner apostrophes and hyphens kept ("it's", "well-known"). */
export function replyWords(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? [];
}

/** Whether some three-word phrase occurs three times among the reply's first 30 words. */
export function loops(reply: string): boolean {
  const words = replyWords(reply).slice(0, LOOP_WINDOW_WORDS);
  const seen = new Map<string, number>();
  for (let i = 0; i + PHRASE_WORDS <= words.length; i++) {
    const phrase = words.slice(i, i + PHRASE_WORDS).join(' ');
    const n = (seen.get(phrase) ?? 0) + 1;
    if (n >= LOOP_REPEATS) return true;
    seen.set(phrase, n);
  }
  return false;
}
