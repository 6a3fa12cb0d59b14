import { describe, expect, it } from 'vitest';
import { judgeReply } from '../judge/criterion';
import { curveRows, observeSession, sessionsToAdaptation, type SessionObservation } from './curve';
import { checkDerivedColumns, formatCurveCsv, parseCurveCsv } from './curveCsv';

function obs(session: number, accept: 0 | 1, extra: Partial<SessionObservation> = {}): SessionObservation {
  return { session, accept, bold: 0, bullets: 0, numbered: 0, no_shown_work: 0, no_gold_answer: 0, turns: 3, first_reply_chars: 100, ...extra };
}

describe('curveRows', () => {
  it('derives list, style_clean and accept_cum per session', () => {
    const rows = curveRows([obs(0, 0, { bold: 1 }), obs(1, 0, { bullets: 1 }), obs(2, 0, { numbered: 1 }), obs(3, 1)]);
    expect(rows.map((r) => [r.list, r.style_clean, r.accept_cum])).toEqual([
      [0, 0, 0],
      [1, 0, 0],
      [1, 0, 0],
      [0, 1, 1],
    ]);
  });

  it('averages over the sessions so far, then over the last 10', () => {
    // accept pattern: 12 rejects then 12 accepts
    const rows = curveRows(Array.from({ length: 24 }, (_, i) => obs(i, i >= 12 ? 1 : 0, { bold: i < 12 ? 1 : 0 })));
    expect(rows[0]!.bold_rate_10).toBe(1);
    expect(rows[12]!.accept_rate_10).toBeCloseTo(0.1, 15);
    expect(rows[12]!.bold_rate_10).toBeCloseTo(0.9, 15);
    expect(rows[16]!.accept_rate_10).toBe(0.5);
    expect(rows[21]!.accept_rate_10).toBe(1);
    expect(rows[21]!.style_clean_rate_10).toBe(1);
    expect(rows[5]!.accept_rate_10).toBe(0);
  });

  it('works from a session index other than 0 but refuses gaps', () => {
    expect(curveRows([obs(5, 1), obs(6, 0)]).map((r) => r.accept_cum)).toEqual([1, 1]);
    expect(() => curveRows([obs(0, 1), obs(2, 0)])).toThrow(/position 1 holds session 2, expected 1/);
  });

  it('is empty for no sessions', () => {
    expect(curveRows([])).toEqual([]);
  });
});

describe('sessionsToAdaptation', () => {
  it('is the first session of the first three accepts in a row', () => {
    const accepts = [0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0] as const;
    expect(sessionsToAdaptation(accepts.map((a, i) => obs(i, a)))).toBe(6);
  });

  it('reproduces "adapted at session 14"', () => {
    const rows = Array.from({ length: 36 }, (_, i) => obs(i, i === 3 || i === 9 || i === 10 || i >= 14 ? 1 : 0));
    expect(sessionsToAdaptation(rows)).toBe(14);
  });

  it('is null without three in a row', () => {
    expect(sessionsToAdaptation([obs(0, 1), obs(1, 1), obs(2, 0), obs(3, 1), obs(4, 1)])).toBeNull();
    expect(sessionsToAdaptation([])).toBeNull();
  });
});

describe('observeSession', () => {
  it('takes the flags from the verdict on the first reply', () => {
    const reply = '**Plan**\n- add 20 + 44 = 64\n2) subtract 100 - 64 = 36';
    const o = observeSession({ session: 4, firstReply: reply, verdict: judgeReply(reply, 36), turns: 5 });
    expect(o).toEqual({
      session: 4,
      accept: 0,
      bold: 1,
      bullets: 1,
      numbered: 1,
      no_shown_work: 0,
      no_gold_answer: 0,
      turns: 5,
      first_reply_chars: reply.length,
    });
  });

  it('marks an accepted reply and counts code points like Python', () => {
    const reply = 'We get 20 + 44 = 64 and 100 - 64 = 36 😀';
    const o = observeSession({ session: 0, firstReply: reply, verdict: judgeReply(reply, 36), turns: 3 });
    expect(o.accept).toBe(1);
    expect(o.first_reply_chars).toBe(reply.length - 1);
  });

  it('an empty reply is no-reply only: no_shown_work and no_gold_answer stay 0 (as in Reef)', () => {
    const o = observeSession({ session: 0, firstReply: '', verdict: judgeReply('', 36), turns: 0 });
    expect(o).toMatchObject({ accept: 0, bold: 0, no_shown_work: 0, no_gold_answer: 0, first_reply_chars: 0 });
    expect(curveRows([o])[0]!.style_clean).toBe(1);
  });

  it('a curve written from verdicts reads back identically', () => {
    const replies = ['**36**', 'We get 20 + 44 = 64 and 100 - 64 = 36.', '', '- 20 + 44 = 64\n- 100 - 64 = 36'];
    const rows = curveRows(replies.map((r, i) => observeSession({ session: i, firstReply: r, verdict: judgeReply(r, 36), turns: 2 })));
    const text = formatCurveCsv(rows);
    const back = parseCurveCsv(text);
    expect(back.rows).toEqual(rows);
    expect(checkDerivedColumns(back)).toEqual([]);
  });
});

describe('curve.csv errors name the line and the column', () => {
  const header =
    'session,accept,bold,bullets,numbered,list,no_shown_work,no_gold_answer,style_clean,turns,first_reply_chars,accept_cum,accept_rate_10,bold_rate_10,list_rate_10,style_clean_rate_10';
  const good = '0,0,1,1,0,1,0,0,0,4,669,0,0.0,1.0,1.0,0.0';

  it.each([
    [`${header}\n${good}\n1,0,2,1,0,1,0,0,0,4,900,0,0.0,1.0,1.0,0.0\n`, 'run/curve.csv: line 3, column 3 (bold): expected 0 or 1, found "2"'],
    [
      `${header}\n${good}\n1,0,1,1,0,1,0,0,0,4,900,0,0.0,1.5,1.0,0.0\n`,
      'run/curve.csv: line 3, column 14 (bold_rate_10): expected a number between 0 and 1, found "1.5"',
    ],
    [
      `${header}\n${good}\n1,0,1,1,0,1,0,0,0,four,900,0,0.0,1.0,1.0,0.0\n`,
      'run/curve.csv: line 3, column 10 (turns): expected a non-negative integer, found "four"',
    ],
    [
      `${header}\n${good}\n3,0,1,1,0,1,0,0,0,4,900,0,0.0,1.0,1.0,0.0\n`,
      'run/curve.csv: line 3, column 1 (session): sessions must be consecutive: expected 1, found "3"',
    ],
    [
      `${header.replace('bold,bullets', 'bullets,bold')}\n${good}\n`,
      'run/curve.csv: line 1, column 3 (bold): expected the header column "bold", found "bullets"',
    ],
  ])('%#', (text, message) => {
    expect(() => parseCurveCsv(text, 'run/curve.csv')).toThrow(message);
  });

  it('a derived cell that disagrees is reported with its line and column', () => {
    const curve = parseCurveCsv(`${header}\n${good}\n1,1,0,0,0,0,0,0,1,2,300,1,0.5,0.5,0.5,0.4\n`);
    expect(checkDerivedColumns(curve)).toEqual([{ line: 3, column: { index: 16, name: 'style_clean_rate_10' }, found: '0.4', expected: 0.5 }]);
  });

  it('derived cells written with fewer decimals pass within their precision only', () => {
    const row2 = (rate: string) => `1,0,1,0,0,0,0,0,0,2,300,0,0.0,1.0,${rate},0.0`;
    const rows = [good, row2('0.5'), '2,0,1,0,0,0,0,0,0,2,300,0,0.0,1.0,0.333,0.0'];
    expect(checkDerivedColumns(parseCurveCsv(`${header}\n${rows.join('\n')}\n`))).toEqual([]);
    const off = [good, row2('0.5'), '2,0,1,0,0,0,0,0,0,2,300,0,0.0,1.0,0.334,0.0'];
    expect(checkDerivedColumns(parseCurveCsv(`${header}\n${off.join('\n')}\n`))).toHaveLength(1);
  });
});
