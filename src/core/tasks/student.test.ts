import { describe, expect, it } from 'vitest';
import { createRng } from './rng';
import { COMPLAINT_OPENERS, complaintFor, composeFirstMessage, confirmsSave, DONE, parseComplaint, saveRequest } from './student';

describe('scripted student wording', () => {
  it('writes the first message of docs/internals.md', () => {
    expect(composeFirstMessage(7, 'Q?', 0)).toBe(
      'My homework is in homework/7.txt. Here it is: "Q?" Can you help me solve it? Show me the answer first, and don\'t write to the file until I tell you.',
    );
  });

  it('names the markers it saw, in a fixed order, after an opener', () => {
    // Find a seed that draws the first hindsight phrasing, to compare with the documented example.
    const texts = Array.from({ length: 30 }, (_, s) => complaintFor(['numbered', 'bold'], createRng(s)));
    const doc = texts.find((c) => c.hindsight.startsWith('Drop'));
    expect(doc?.hindsight).toBe(
      'Drop the bold and the numbered steps and write it like a student would, in plain sentences. Redo it naturally and keep every step.',
    );
    for (const c of texts) {
      expect(COMPLAINT_OPENERS).toContain(c.opener);
      expect(c.text).toBe(`${c.opener} ${c.hindsight}`);
      expect(c.hindsight).toMatch(/the bold and the numbered steps/);
    }
  });

  it('asks for the work when steps or the answer are missing', () => {
    const c = complaintFor(['no-gold-answer'], createRng(1));
    expect(c.hindsight).toBe('Show every calculation step and check the answer again.');
    const both = complaintFor(['boxed', 'final-answer', 'no-shown-work'], createRng(2));
    expect(both.hindsight).toMatch(/the boxed answer and the "Final answer:" label/);
    expect(both.hindsight.endsWith('Show every calculation step and check the answer again.')).toBe(true);
    expect(() => complaintFor([], createRng(3))).toThrow();
  });

  it('lets the rule judge take the hint back out of a complaint', () => {
    const c = complaintFor(['header', 'bullet', 'rule-line/table'], createRng(4));
    const parsed = parseComplaint(c.text);
    expect(parsed?.hindsight).toBe(c.hindsight);
    expect((parsed?.hindsight.length ?? 0) > 10).toBe(true);
    expect(parseComplaint(saveRequest({ index: 3 }))).toBeNull();
    expect(parseComplaint(DONE)).toBeNull();
  });

  it('asks to append, and recognises a confirmation', () => {
    expect(saveRequest({ index: 12 })).toBe('Great, that looks right. Please append the answers to homework/12.txt.');
    expect(confirmsSave('Done! I appended the answer to homework/12.txt.', { index: 12 })).toBe(true);
    expect(confirmsSave('Saved it.', { index: 12 })).toBe(true);
    expect(confirmsSave('The answer is 72.', { index: 12 })).toBe(false);
  });
});
