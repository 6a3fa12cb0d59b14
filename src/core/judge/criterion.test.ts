import { describe, expect, it } from 'vitest';
import { countMarkersByKind, countViolations, isCleanWithWork, isStyleClean, judgeReply, normalizeGold, type MarkerKind, type RejectReason } from './criterion';

// Two calculation steps and the gold (36): the shape of an accepted reply.
const WORK = 'Carol has 20 and Jennifer has 44, so they have 20 + 44 = 64. They need 100 - 64 = 36 more.';

type Case = {
  name: string;
  reply: string;
  gold: number | string;
  accepted: boolean;
  failures?: RejectReason[];
  /** Every marker as [kind, the text its span covers], in order. */
  markers?: [MarkerKind, string][];
  /** The text each shown-work match covers, in order. */
  shownWork?: string[];
  /** The text the gold span covers, or null when absent. */
  goldText?: string | null;
};

const cases: Case[] = [
  // --- the plain accepted shape and empty replies
  {
    name: 'plain reply with two steps and the gold',
    reply: WORK,
    gold: 36,
    accepted: true,
    failures: [],
    markers: [],
    shownWork: ['20 + 44', '100 - 64'],
    goldText: '36',
  },
  { name: 'empty reply', reply: '', gold: 36, accepted: false, failures: ['no-reply'], markers: [], shownWork: [], goldText: null },
  { name: 'whitespace-only reply (spaces, tabs, CRLF)', reply: '  \t\r\n \n\r ', gold: 36, accepted: false, failures: ['no-reply'] },
  { name: 'whitespace-only reply skips every other check', reply: '\u00a0\n', gold: 0, accepted: false, failures: ['no-reply'], markers: [], goldText: null },

  // --- bold
  { name: 'bold answer', reply: `${WORK} So the answer is **36**.`, gold: 36, accepted: false, failures: ['style'], markers: [['bold', '**36**']] },
  { name: 'bold spanning two lines is not bold', reply: `**Carol and\nJennifer** ${WORK}`, gold: 36, accepted: true, markers: [] },
  { name: 'bold spanning a CRLF line break is not bold', reply: `**Carol and\r\nJennifer** ${WORK}`, gold: 36, accepted: true, markers: [] },
  {
    name: 'two bolds on one line are two markers',
    reply: `**Step one:** ${WORK} **Done**`,
    gold: 36,
    accepted: false,
    markers: [
      ['bold', '**Step one:**'],
      ['bold', '**Done**'],
    ],
  },
  { name: 'asterisks around spaces only are not bold', reply: `${WORK} ** **`, gold: 36, accepted: true, markers: [] },
  { name: 'bold-italic counts as bold', reply: `${WORK} ***Answer 36***`, gold: 36, accepted: false, markers: [['bold', '**Answer 36**']] },
  { name: 'underscore emphasis is not in the criterion', reply: `__Note__ ${WORK}`, gold: 36, accepted: true, markers: [] },

  // --- headers
  { name: 'markdown header', reply: `# Solution\n${WORK}`, gold: 36, accepted: false, markers: [['header', '# Solution']] },
  { name: 'six-hash header', reply: `###### Step\n${WORK}`, gold: 36, accepted: false, markers: [['header', '###### Step']] },
  { name: 'seven hashes are not a header', reply: `####### Step\n${WORK}`, gold: 36, accepted: true, markers: [] },
  { name: 'hashtag without a space is not a header', reply: `#homework\n${WORK}`, gold: 36, accepted: true, markers: [] },

  // --- bullets vs minus signs
  { name: 'dash bullet', reply: `- Carol has 20.\n${WORK}`, gold: 36, accepted: false, markers: [['bullet', '- Carol has 20.']] },
  {
    name: 'star and dot bullets',
    reply: `* first\n• second\n${WORK}`,
    gold: 36,
    accepted: false,
    markers: [
      ['bullet', '* first'],
      ['bullet', '• second'],
    ],
  },
  { name: '-3 at a line start is a number, not a bullet', reply: `-3 degrees was the change.\n${WORK}`, gold: 36, accepted: true, markers: [] },
  { name: '-3 in a sentence is not a bullet', reply: `The change was -3 degrees. ${WORK}`, gold: 36, accepted: true, markers: [] },
  { name: 'a dash with nothing after it is not a bullet', reply: `-\n${WORK}`, gold: 36, accepted: true, markers: [] },
  { name: 'indented bullet counts', reply: `${WORK}\n   - check: 36`, gold: 36, accepted: false, markers: [['bullet', '- check: 36']] },

  // --- numbered lines
  { name: '1) numbered line', reply: `1) Add them: 20 + 44 = 64.\n${WORK}`, gold: 36, accepted: false, markers: [['numbered', '1) Add them: 20 + 44 = 64.']] },
  { name: '12. numbered line', reply: `${WORK}\n12. Check the total.`, gold: 36, accepted: false, markers: [['numbered', '12. Check the total.']] },
  { name: 'a decimal at a line start is not numbered', reply: `3.5 hours were left.\n${WORK}`, gold: 36, accepted: true, markers: [] },
  { name: 'a number alone with a period is not numbered', reply: `${WORK}\n36.`, gold: 36, accepted: true, markers: [] },

  // --- \boxed, final answer, rule lines
  { name: '\\boxed{} answer', reply: `${WORK} \\boxed{36}`, gold: 36, accepted: false, failures: ['style'], markers: [['boxed', '\\boxed{36}']] },
  { name: 'empty \\boxed{}', reply: `${WORK} \\boxed{}`, gold: 36, accepted: false, markers: [['boxed', '\\boxed{}']] },
  { name: 'Final Answer: in title case', reply: `${WORK} Final Answer: 36`, gold: 36, accepted: false, markers: [['final-answer', 'Final Answer:']] },
  { name: 'FINAL ANSWER: in capitals', reply: `${WORK} FINAL ANSWER: 36`, gold: 36, accepted: false, markers: [['final-answer', 'FINAL ANSWER:']] },
  { name: 'final answer without a colon is fine', reply: `${WORK} My final answer is 36.`, gold: 36, accepted: true, markers: [] },
  { name: 'table row', reply: `| girl | signatures |\n${WORK}`, gold: 36, accepted: false, markers: [['rule-line', '| girl | signatures |']] },
  {
    name: 'horizontal rules --- and ___',
    reply: `${WORK}\n---\n___\n--`,
    gold: 36,
    accepted: false,
    markers: [
      ['rule-line', '---'],
      ['rule-line', '___'],
    ],
  },

  // --- CRLF
  {
    name: 'CRLF plain reply is accepted',
    reply: 'Carol has 20 + 44 = 64 signatures.\r\nThey need 100 - 64 = 36 more.\r\n',
    gold: 36,
    accepted: true,
    shownWork: ['20 + 44', '100 - 64'],
  },
  { name: 'CRLF bullet span stops before the \\r', reply: `- first line\r\n${WORK}`, gold: 36, accepted: false, markers: [['bullet', '- first line']] },
  { name: 'CR-only line ends still start lines', reply: `${WORK}\r# Done`, gold: 36, accepted: false, markers: [['header', '# Done']] },

  // --- shown work
  {
    name: 'one equation is one match: no shown work',
    reply: 'Together 20 + 44 = 64, so they need 36.',
    gold: 36,
    accepted: false,
    failures: ['no-shown-work'],
    shownWork: ['20 + 44'],
  },
  {
    name: 'a chain of additions gives non-overlapping matches',
    reply: 'We add 1 + 2 + 3 + 4 to get 10, then 36.',
    gold: 36,
    accepted: true,
    shownWork: ['1 + 2', '3 + 4'],
  },
  { name: '× and ÷ are operators', reply: 'Each day is 6 × 7 hours, and 84 ÷ 2 is 42, so 36.', gold: 36, accepted: true, shownWork: ['6 × 7', '84 ÷ 2'] },
  {
    name: 'plus and minus words',
    reply: 'They have 20 plus 44 signatures, that is 64, and 100 minus 64 leaves 36.',
    gold: 36,
    accepted: true,
    shownWork: ['20 plus 44', '100 minus 64'],
  },
  {
    name: 'times, divided by and equals words in any case',
    reply: '3 Times 4 is twelve and 12 divided by 2 is six; 6 EQUALS 6, so 36.',
    gold: 36,
    accepted: true,
    shownWork: ['3 Times 4', '12 divided by 2', '6 EQUALS 6'],
  },
  {
    name: '"timestamps" does not contain the operator times',
    reply: 'I saw 3 timestamps 4 and 5 timestamps 6, so 36.',
    gold: 36,
    accepted: false,
    failures: ['no-shown-work'],
    shownWork: [],
  },
  { name: 'x is not a multiplication operator', reply: 'It is 6 x 7 and 2 x 3, so 36.', gold: 36, accepted: false, failures: ['no-shown-work'], shownWork: [] },
  {
    name: 'filler of 24 characters is allowed, 25 is not',
    reply: `7 ${'a'.repeat(22)} + 1 and 8 ${'b'.repeat(23)} + 1, so 36.`,
    gold: 36,
    accepted: false,
    shownWork: [`7 ${'a'.repeat(22)} + 1`],
  },
  {
    name: 'a line break inside the filler breaks the match',
    reply: 'We take 20\n+ 44 and 100\n× 64, so 36.',
    gold: 36,
    accepted: false,
    failures: ['no-shown-work'],
    shownWork: [],
  },
  {
    name: 'thousands commas and decimals are one number',
    reply: 'It costs 1,250.50 + 2,000 = 3,250.50 and then 3,250.50 - 250.50 = 3,000.',
    gold: 3000,
    accepted: true,
    shownWork: ['1,250.50 + 2,000', '3,250.50 - 250.50'],
    goldText: '3,000',
  },
  {
    name: 'a long digit run is one number, never split',
    reply: 'Add 123456789 + 1 and 12,34 + 5 to get 36.',
    gold: 36,
    accepted: true,
    shownWork: ['123456789 + 1', '34 + 5'],
  },
  {
    name: 'a hyphen counts as minus (as docs/design.md lists it)',
    reply: 'A 3-4 hour trip and a 5-6 hour trip: 36.',
    gold: 36,
    accepted: true,
    shownWork: ['3-4', '5-6'],
  },
  {
    name: 'a short "clean" answer without work (Reef failure mode)',
    reply: 'The sisters need 36 more signatures to reach their goal of one hundred by summer.',
    gold: 36,
    accepted: false,
    failures: ['no-shown-work'],
  },

  // --- the gold answer
  {
    name: 'gold with thousands comma in the reply',
    reply: 'It is 490 - 150 = 340 meters more, and 340 × 194 = 65,960 dollars.',
    gold: '65,960',
    accepted: true,
    goldText: '65,960',
  },
  {
    name: 'gold given with commas, reply without',
    reply: 'It is 490 - 150 = 340 meters more, and 340 × 194 = 65960 dollars.',
    gold: '65,960',
    accepted: true,
    goldText: '65960',
  },
  {
    name: 'gold adjacent to a digit is not the gold',
    reply: 'We get 20 + 44 = 64, then 100 - 64 = 136 or 360.',
    gold: 36,
    accepted: false,
    failures: ['no-gold-answer'],
    goldText: null,
  },
  {
    name: 'gold as the decimals of a number is not the gold',
    reply: 'We get 20 + 44 = 64, then 100 - 64 = 0.36 or .36.',
    gold: 36,
    accepted: false,
    failures: ['no-gold-answer'],
    goldText: null,
  },
  {
    name: 'gold followed by decimals is not the gold',
    reply: 'We get 20 + 44 = 64, then 100 - 64 = 36.5 or 36.00.',
    gold: 36,
    accepted: false,
    failures: ['no-gold-answer'],
    goldText: null,
  },
  { name: 'gold before a sentence-ending period is the gold', reply: 'We get 20 + 44 = 64, then 100 - 64 = 36.', gold: 36, accepted: true, goldText: '36' },
  {
    name: 'comma-stripping joins digits (as docs/design.md says)',
    reply: 'We get 20 + 44 = 64, then 100 - 64 and the list 3,6.',
    gold: 36,
    accepted: true,
    goldText: '3,6',
  },
  { name: 'negative gold', reply: 'It went 5 - 8 = -3 degrees, then 2 - 5 again.', gold: '-3', accepted: true, goldText: '-3' },
  { name: 'decimal gold', reply: 'Each is 5 / 2 = 2.5 hours, so 2 + 0.5 is it.', gold: '2.5', accepted: true, goldText: '2.5' },
  { name: 'first occurrence of the gold is reported', reply: 'Add 30 + 6 = 36 and 40 - 4 = 36.', gold: 36, accepted: true, goldText: '36' },
  {
    name: 'offsets are UTF-16 offsets past emoji',
    reply: '😀 We get 20 + 44 = 64 and 100 - 64 = 36.',
    gold: 36,
    accepted: true,
    goldText: '36',
    shownWork: ['20 + 44', '100 - 64'],
  },

  // --- several failures: the reason is the first, every failure is kept
  {
    name: 'style, shown work and gold all fail',
    reply: '**Answer:** about forty',
    gold: 36,
    accepted: false,
    failures: ['style', 'no-shown-work', 'no-gold-answer'],
  },
  {
    name: 'no shown work and no gold',
    reply: 'I think it is about forty signatures.',
    gold: 36,
    accepted: false,
    failures: ['no-shown-work', 'no-gold-answer'],
  },
  {
    name: 'every marker kind in one reply is kept',
    reply: `# Plan\n- step\n1. **Add**: 20 + 44 = 64\n| a |\n${WORK}\nFinal answer: \\boxed{36}`,
    gold: 36,
    accepted: false,
    failures: ['style'],
    markers: [
      ['header', '# Plan'],
      ['bullet', '- step'],
      ['numbered', '1. **Add**: 20 + 44 = 64'],
      ['bold', '**Add**'],
      ['rule-line', '| a |'],
      ['final-answer', 'Final answer:'],
      ['boxed', '\\boxed{36}'],
    ],
  },
];

describe('judgeReply: table of tricky replies', () => {
  it('has at least 40 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases)('$name', (c) => {
    const v = judgeReply(c.reply, c.gold);
    expect(v.accepted).toBe(c.accepted);
    expect(v.reason).toBe(v.failures[0] ?? null);
    if (c.failures) expect(v.failures).toEqual(c.failures);
    if (c.markers) expect(v.markers.map((m) => [m.kind, c.reply.slice(m.start, m.end)])).toEqual(c.markers);
    if (c.shownWork) expect(v.shownWork.map((s) => c.reply.slice(s.start, s.end))).toEqual(c.shownWork);
    if (c.goldText !== undefined) {
      expect(v.goldAt === null ? null : c.reply.slice(v.goldAt.start, v.goldAt.end)).toBe(c.goldText);
    }
  });
});

describe('judgeReply: invariants', () => {
  it('markers are sorted and lie inside the reply', () => {
    for (const c of cases) {
      const v = judgeReply(c.reply, c.gold);
      let last = -1;
      for (const m of [...v.markers, ...v.shownWork]) {
        expect(m.start).toBeGreaterThanOrEqual(0);
        expect(m.end).toBeGreaterThan(m.start);
        expect(m.end).toBeLessThanOrEqual(c.reply.length);
      }
      for (const m of v.markers) {
        expect(m.start).toBeGreaterThanOrEqual(last);
        last = m.start;
      }
    }
  });

  it('shown-work matches never overlap', () => {
    for (const c of cases) {
      const spans = judgeReply(c.reply, c.gold).shownWork;
      for (let i = 1; i < spans.length; i++) expect(spans[i]!.start).toBeGreaterThanOrEqual(spans[i - 1]!.end);
    }
  });

  it('the same reply with CRLF line ends gets the same verdict kinds', () => {
    for (const c of cases) {
      const lf = judgeReply(c.reply.replace(/\r\n?/g, '\n'), c.gold);
      const crlf = judgeReply(c.reply.replace(/\r\n?/g, '\n').replace(/\n/g, '\r\n'), c.gold);
      expect(crlf.failures).toEqual(lf.failures);
      expect(crlf.markers.map((m) => m.kind)).toEqual(lf.markers.map((m) => m.kind));
      expect(crlf.shownWork.length).toBe(lf.shownWork.length);
    }
  });
});

describe('gold normalisation', () => {
  it('accepts numbers and numeric strings with commas', () => {
    expect(normalizeGold(36)).toBe('36');
    expect(normalizeGold(' 1,450,000 ')).toBe('1450000');
    expect(normalizeGold('-10')).toBe('-10');
    expect(normalizeGold(2.5)).toBe('2.5');
  });

  it.each([['abc'], [''], ['3/4'], ['1e5']])('rejects %j with a clear error', (gold) => {
    expect(() => judgeReply(WORK, gold)).toThrow(/gold answer must be a number/);
  });

  it('rejects non-finite numbers', () => {
    expect(() => judgeReply(WORK, Number.NaN)).toThrow(/gold answer/);
    expect(() => judgeReply(WORK, Number.POSITIVE_INFINITY)).toThrow(/gold answer/);
  });
});

describe('summary helpers', () => {
  it('counts violations and kinds', () => {
    const v = judgeReply(`# H\n**a** **b**\n${WORK}`, 36);
    expect(countViolations(v)).toBe(3);
    expect(countMarkersByKind(v)).toEqual({ bold: 2, header: 1, bullet: 0, numbered: 0, boxed: 0, 'final-answer': 0, 'rule-line': 0 });
  });

  it('style_clean ignores headers and \\boxed but not bold, bullets or numbered lines', () => {
    expect(isStyleClean(judgeReply(`# H\n${WORK} \\boxed{36}`, 36))).toBe(true);
    expect(isStyleClean(judgeReply(`**x** ${WORK}`, 36))).toBe(false);
    expect(isStyleClean(judgeReply(`- x\n${WORK}`, 36))).toBe(false);
    expect(isStyleClean(judgeReply(`1. x\n${WORK}`, 36))).toBe(false);
    expect(isStyleClean(judgeReply('', 36))).toBe(true);
  });

  it('clean-with-work needs an answer, no marker at all, and shown work', () => {
    expect(isCleanWithWork(judgeReply(WORK, 1))).toBe(true);
    expect(isCleanWithWork(judgeReply(`# H\n${WORK}`, 36))).toBe(false);
    expect(isCleanWithWork(judgeReply('The answer is 36.', 36))).toBe(false);
    expect(isCleanWithWork(judgeReply(' ', 36))).toBe(false);
  });
});
