// bench:personalization's scripted user, checked with the recipe's own judge:
// each of its reactions is a next state the rule PRM and hint judge must read
// as meant (a complaint trains both terms with its preference as the hint, the
// satisfied follow-up trains +1), and the rate arithmetic.
import { describe, expect, it } from 'vitest';
import { createRuleHintJudge, createRulePrm } from '../src/core/judge/ruleJudge';
import { dispatchTurn } from '../src/core/judge/trainDispatch';
import { composeTurnJudge } from '../src/core/judge/turnJudge';
import { createRng } from '../src/core/tasks/rng';
import { FLOOR_HINDSIGHT, PREFERENCE_THANKS } from '../src/core/tasks/student';
import { VOLCANO_TASK } from '../src/core/preference/testing/volcanoTask';
import { learningRows, markdownKinds, meetsPreference, preferenceMetRate, reactTo, requestSeed, statedPreferenceUser } from './personalizationUser';

// The recipes' judge: the rule PRM and the rule hint judge with min_chars 10.
const judge = composeTurnJudge(createRulePrm(), createRuleHintJudge(10));
const task = { index: 3 };
const MARKDOWN = '**Step 1:** 12 + 30 = 42\n\n- So the answer is 42.';
const PLAIN = 'First I add 12 + 30 = 42, and 42 - 0 = 42, so the answer is 42.';

describe('the scripted user with a plain-prose preference', () => {
  it('sees markdown with the pass criterion’s detector', () => {
    expect(markdownKinds(MARKDOWN)).toEqual(['bold', 'bullet']);
    expect(markdownKinds('## Answer\n1. add')).toEqual(['header', 'numbered']);
    expect(markdownKinds(PLAIN)).toEqual([]);
    expect(meetsPreference(PLAIN)).toBe(true);
    expect(meetsPreference(MARKDOWN)).toBe(false);
    // An empty reply has no markdown, and meets no preference.
    expect(meetsPreference('  ')).toBe(false);
  });

  it('complains about markdown, stating the preference; the judge reads −1 and takes the preference as the hint', async () => {
    const said = reactTo(MARKDOWN, { task, complaintsSoFar: 0, maxComplaints: 2, rng: createRng(5) });
    expect(said).toMatchObject({ kind: 'complaint', done: false });
    expect(said.text).toMatch(/the bold and the bullet points/);
    expect(said.text).toMatch(/plain sentences|normal sentences/);
    const judged = await judge.judgeTurn({ assistantOutput: MARKDOWN, nextState: said.text });
    expect(judged.score).toBe(-1);
    const training = dispatchTurn(judged);
    expect(training.mode).toBe('both');
    expect(training.hint).toMatch(/the bold and the bullet points/);
  });

  it('ends the conversation with its last allowed complaint', () => {
    const said = reactTo(MARKDOWN, { task, complaintsSoFar: 1, maxComplaints: 2, rng: createRng(5) });
    expect(said).toMatchObject({ kind: 'complaint', done: true });
  });

  it('answers a plain reply with the satisfied save request, which the judge reads +1 and which ends the conversation', async () => {
    const said = reactTo(PLAIN, { task, complaintsSoFar: 1, maxComplaints: 2, rng: createRng(5) });
    expect(said).toEqual({ kind: 'satisfied', done: true, text: 'Great, that looks right. Please append the answers to homework/3.txt.' });
    const judged = await judge.judgeTurn({ assistantOutput: PLAIN, nextState: said.text });
    expect(dispatchTurn(judged)).toEqual({ mode: 'rl-only', reward: 1, hint: null });
  });

  it('complains about an empty reply too (−1), though it has no markdown', async () => {
    const said = reactTo('', { task, complaintsSoFar: 0, maxComplaints: 2, rng: createRng(1) });
    expect(said.kind).toBe('complaint');
    expect((await judge.judgeTurn({ assistantOutput: '', nextState: said.text })).score).toBe(-1);
  });
});

describe('the rate arithmetic', () => {
  it('counts the replies that meet the preference', () => {
    expect(preferenceMetRate([PLAIN, MARKDOWN, PLAIN, ''])).toEqual({ met: 2, total: 4, rate: 0.5 });
    expect(() => preferenceMetRate([])).toThrow(/no replies/);
  });

  it('reports trained minus control at the checkpoints both arms reached', () => {
    const trained = [
      { interactions: 0, rate: 0.25, promotions: 0 },
      { interactions: 4, rate: 0.75, promotions: 1 },
      { interactions: 8, rate: 1, promotions: 2 },
    ];
    const control = [
      { interactions: 0, rate: 0.25, promotions: 0 },
      { interactions: 4, rate: 0.5, promotions: 0 },
    ];
    expect(learningRows(trained, control)).toEqual([
      { interactions: 0, trained: 0.25, control: 0.25, difference: 0, promotions: 0 },
      { interactions: 4, trained: 0.75, control: 0.5, difference: 0.25, promotions: 1 },
    ]);
  });

  it('gives both arms the same seed for the same request, and different requests different seeds', () => {
    expect(requestSeed(1, 'talk', 2, 1)).toBe(requestSeed(1, 'talk', 2, 1));
    const seeds = new Set([requestSeed(1, 'talk', 2, 1), requestSeed(1, 'talk', 1, 2), requestSeed(1, 'eval', 2, 1), requestSeed(2, 'talk', 2, 1)]);
    expect(seeds.size).toBe(4);
  });
});

describe('the scripted user of a stated preference', () => {
  const preference = { rule: { kind: 'max_words', words: 8 }, statement: 'Please keep it short: one sentence.' } as const;
  const user = statedPreferenceUser(preference);
  const topic = VOLCANO_TASK;
  const SHORT = 'A volcano is a mountain that erupts lava.';
  const LONG = 'A volcano is a big mountain where hot lava comes out of the ground.';

  it('rates the rule and reports the floor apart', () => {
    expect(user.preference).toBe('at most 8 words ("Please keep it short: one sentence.")');
    expect(user.meets(SHORT)).toBe(true);
    expect(user.meets(LONG)).toBe(false);
    expect(user.breaks(LONG)).toEqual(['over-length']);
    expect(user.meets('It is a mountain.')).toBe(true);
    expect(user.answers('It is a mountain.', topic)).toBe(false);
    expect(user.answers(SHORT, topic)).toBe(true);
  });

  it('thanks an accepted reply (+1, the conversation ends) and complains about a long one with the statement as the hint (−1)', async () => {
    const thanks = await user.reactTo(SHORT, { task: topic, complaintsSoFar: 0, maxComplaints: 2, rng: createRng(3) });
    expect(thanks).toEqual({ text: PREFERENCE_THANKS, done: true, kind: 'satisfied' });
    expect(dispatchTurn(await judge.judgeTurn({ assistantOutput: SHORT, nextState: thanks.text }))).toEqual({ mode: 'rl-only', reward: 1, hint: null });
    const complaint = await user.reactTo(LONG, { task: topic, complaintsSoFar: 0, maxComplaints: 2, rng: createRng(3) });
    expect(complaint).toMatchObject({ kind: 'complaint', done: false });
    const training = dispatchTurn(await judge.judgeTurn({ assistantOutput: LONG, nextState: complaint.text }));
    expect(training).toEqual({ mode: 'both', reward: -1, hint: preference.statement });
  });

  it('asks for an answer when a short reply missed the floor, and ends at its last allowed complaint', async () => {
    const said = await user.reactTo('It is a mountain.', { task: topic, complaintsSoFar: 1, maxComplaints: 2, rng: createRng(3) });
    expect(said).toMatchObject({ kind: 'complaint', done: true });
    expect(said.text.endsWith(FLOOR_HINDSIGHT)).toBe(true);
  });
});
