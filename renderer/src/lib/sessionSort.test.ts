import { describe, expect, test } from 'vitest';
import type { SessionView } from '../../../src/contract/labRuns';
import { nextSort, sortSessions } from './sessionSort';

function session(n: number, fields: Partial<SessionView> = {}): SessionView {
  return {
    session: n,
    at: '2026-12-03T10:00:00.000Z',
    taskId: `hw-${n}`,
    question: 'q',
    gold: 10 * n,
    accepted: false,
    turns: 2,
    version: 'base',
    firstReply: '',
    verdict: { accepted: false, reason: 'style', failures: ['style'], markers: [], shownWork: [], goldAt: null },
    reaction: null,
    reward: null,
    hint: null,
    curve: {
      session: n,
      accept: 0,
      bold: 0,
      bullets: 0,
      numbered: 0,
      list: 0,
      no_shown_work: 0,
      no_gold_answer: 0,
      style_clean: 1,
      turns: 2,
      first_reply_chars: 0,
      accept_cum: 0,
      accept_rate_10: 0,
      bold_rate_10: 0,
      list_rate_10: 0,
      style_clean_rate_10: 1,
    },
    training: { judgedTurns: null, samples: 0, prmMean: null, trainedIn: [], excluded: null },
    live: null,
    ...fields,
  };
}

const order = (rows: readonly SessionView[]) => rows.map((s) => s.session);

describe('sorting the sessions table (unit)', () => {
  const rows = [
    session(0, { reward: -1, version: 'base', hint: { text: 'Drop the bold.', accepted: true } }),
    session(1, { reward: 1, version: 'v12-aaaaaaaa', accepted: true }),
    session(2, { reward: null, version: 'v9-bbbbbbbb' }),
    session(3, { reward: 1, version: 'v9-bbbbbbbb', hint: { text: 'Add the steps.', accepted: false } }),
  ];

  test('numbers sort by value; ties keep session order in both directions', () => {
    expect(order(sortSessions(rows, { key: 'reward', direction: 'ascending' }))).toEqual([0, 1, 3, 2]);
    expect(order(sortSessions(rows, { key: 'reward', direction: 'descending' }))).toEqual([1, 3, 0, 2]);
    expect(order(sortSessions(rows, { key: 'gold', direction: 'descending' }))).toEqual([3, 2, 1, 0]);
  });

  test('empty values (no reward, no hint) stay last whichever the direction', () => {
    expect(order(sortSessions(rows, { key: 'hint', direction: 'ascending' }))).toEqual([3, 0, 1, 2]);
    expect(order(sortSessions(rows, { key: 'hint', direction: 'descending' }))).toEqual([0, 3, 1, 2]);
  });

  test('versions sort in the order they were made (base, v9, v12), not as text', () => {
    expect(order(sortSessions(rows, { key: 'version', direction: 'ascending' }))).toEqual([0, 2, 3, 1]);
  });

  test('accepted, and the input is not changed', () => {
    const copy = [...rows];
    expect(order(sortSessions(rows, { key: 'accepted', direction: 'descending' }))).toEqual([1, 0, 2, 3]);
    expect(rows).toEqual(copy);
  });

  test('a click on the same column flips it; another column starts ascending', () => {
    expect(nextSort({ key: 'session', direction: 'ascending' }, 'session')).toEqual({ key: 'session', direction: 'descending' });
    expect(nextSort({ key: 'session', direction: 'descending' }, 'reward')).toEqual({ key: 'reward', direction: 'ascending' });
  });
});
