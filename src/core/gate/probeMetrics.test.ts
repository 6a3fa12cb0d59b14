import { describe, expect, it } from 'vitest';
import { replyCriterion } from '../preference/replyCriterion';
import { judgeProbeReply, probeRoundMetrics, type ProbeReply } from './probeMetrics';

const brief = replyCriterion({ rule: { kind: 'max_words', words: 5 }, statement: 'Please keep it short.' });
const ending = replyCriterion({ rule: { kind: 'ends_with', phrase: 'Hope that helps!' }, statement: 'End with "Hope that helps!"' });
const reply = (i: number, text: string, finishReason: 'stop' | 'length' = 'stop'): ProbeReply => ({
  taskId: `probe-0${i}`,
  gold: 0,
  mentions: ['lava'],
  seed: 100 + i,
  text,
  finishReason,
  completionTokens: text.length,
});

describe('a cut reply never decides a round on its own', () => {
  it('a cut reply that already broke a rule that stays broken is settled; one whose verdict more text could change is not', () => {
    expect(judgeProbeReply(reply(1, 'Lava is hot rock that flows and', 'length'), brief).settled).toBe(true);
    expect(judgeProbeReply(reply(1, 'Lava is hot', 'length'), brief).settled).toBe(false);
    // The ending is what the cut took: never settled while cut.
    expect(judgeProbeReply(reply(1, 'Lava is hot rock', 'length'), ending).settled).toBe(false);
    expect(judgeProbeReply(reply(1, 'Lava is hot rock', 'stop'), ending).settled).toBe(true);
    // The pass criterion: a style marker stays, a missing answer might have come.
    expect(judgeProbeReply({ ...reply(1, '**Step 1** 2 + 2', 'length'), gold: 4 }).settled).toBe(true);
    expect(judgeProbeReply({ ...reply(1, 'First, 2 + 2', 'length'), gold: 4 }).settled).toBe(false);
  });

  it('leaves a problem with an open cut reply on either side out of both pass rates, and keeps it in gold and answered', () => {
    const candidate = [reply(1, 'Lava is hot.'), reply(2, 'Lava flows.'), reply(3, 'Lava is hot', 'length')].map((r) => judgeProbeReply(r, brief));
    const serving = [reply(1, 'Lava is hot rock from volcanoes, it flows.'), reply(2, 'Lava is', 'length'), reply(3, 'Lava.')].map((r) =>
      judgeProbeReply(r, brief),
    );
    const { candidate: c, serving: s } = probeRoundMetrics(candidate, serving);
    // Problem 1 only: problem 2 is open on serving's side, problem 3 on the candidate's.
    expect([c.pass_n, c.pass_rate, s.pass_n, s.pass_rate]).toEqual([1, 1, 1, 0]);
    expect([c.n, c.gold_rate, c.answered_rate]).toEqual([3, 1, 2 / 3]);
    expect([s.n, s.gold_rate, s.answered_rate]).toEqual([3, 1, 2 / 3]);
  });

  it('with no problem both sides can be compared on, pass_rate is 0 on both sides and decides nothing', () => {
    const open = [judgeProbeReply(reply(1, 'Lava', 'length'), brief)];
    const { candidate: c, serving: s } = probeRoundMetrics(open, open);
    expect([c.pass_n, c.pass_rate, s.pass_rate]).toEqual([0, 0, 0]);
  });

  it('refuses sides that answered different problems or seeds', () => {
    const a = [judgeProbeReply(reply(1, 'Lava.'), brief)];
    const b = [judgeProbeReply(reply(2, 'Lava.'), brief)];
    expect(() => probeRoundMetrics(a, b)).toThrow(/different problems or seeds/u);
  });
});
