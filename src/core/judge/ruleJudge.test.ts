// The rule judge against the scripted student's own wording (the contract):
// every complaint the student can write scores -1 with its hindsight as the
// hint; its save request and HOMEWORK_DONE score +1; anything else 0.

import { describe, expect, it } from 'vitest';
import { createRng } from '../tasks/rng';
import { COMPLAINT_OPENERS, DONE, VIOLATION_KINDS, complaintFor, saveRequest } from '../tasks/student';
import { dispatchTurn } from './trainDispatch';
import { createRuleHintJudge, createRulePrm, ruleHint, ruleScore } from './ruleJudge';
import { composeTurnJudge } from './turnJudge';

const judge = composeTurnJudge(createRulePrm(), createRuleHintJudge());
const REPLY = '**Answer:** 36';

describe('rule PRM and hint', () => {
  it('scores every complaint the student writes -1 and takes its hindsight as the hint', () => {
    for (let seed = 0; seed < 60; seed++) {
      const rng = createRng(seed);
      const kinds = VIOLATION_KINDS.filter((k) => k !== 'no-reply' && rng.next() < 0.4);
      const complaint = complaintFor(kinds.length > 0 ? kinds : ['bold'], rng);
      expect(ruleScore(complaint.text)).toBe(-1);
      expect(ruleHint(complaint.text)).toBe(complaint.hindsight);
    }
  });

  it('knows every opener', () => {
    for (const opener of COMPLAINT_OPENERS) expect(ruleScore(`${opener} Show every calculation step and check the answer again.`)).toBe(-1);
  });

  it('scores the save request and HOMEWORK_DONE +1 without a hint', () => {
    for (const index of [0, 7, 71]) {
      expect(ruleScore(saveRequest({ index }))).toBe(1);
      expect(ruleHint(saveRequest({ index }))).toBeUndefined();
    }
    expect(ruleScore(DONE)).toBe(1);
    expect(ruleScore(`Thanks! ${DONE}`)).toBe(1);
  });

  it.each(['', 'ok', 'What is the capital of France?', 'This looks too AI-written', 'Please append it somewhere.'])(
    'scores %j 0 without a hint',
    (nextState) => {
      expect(ruleScore(nextState)).toBe(0);
      expect(ruleHint(nextState)).toBeUndefined();
    },
  );
});

describe('the rule turn judge through the dispatch table', () => {
  it('a complaint trains both terms with reward -1', async () => {
    const complaint = complaintFor(['bold', 'numbered'], createRng(3));
    const j = await judge.judgeTurn({ assistantOutput: REPLY, nextState: complaint.text });
    expect(j).toMatchObject({ score: -1, votes: [-1], hint: complaint.hindsight, hintAccepted: true, backends: { prm: 'rule', hint: 'rule' } });
    expect(dispatchTurn(j)).toEqual({ mode: 'both', reward: -1, hint: complaint.hindsight });
  });

  it('a save request trains RL only with reward +1', async () => {
    const j = await judge.judgeTurn({ assistantOutput: 'We get 20 + 44 = 64 and 100 - 64 = 36.', nextState: saveRequest({ index: 5 }) });
    expect(j).toMatchObject({ score: 1, hintAccepted: false });
    expect(j.hint).toBeUndefined();
    expect(dispatchTurn(j)).toEqual({ mode: 'rl-only', reward: 1, hint: null });
  });

  it('an ambiguous reaction does not train', async () => {
    const j = await judge.judgeTurn({ assistantOutput: REPLY, nextState: 'hmm' });
    expect(dispatchTurn(j).mode).toBe('none');
  });

  it('a hint at or under min_chars is not accepted', async () => {
    const strict = composeTurnJudge(createRulePrm(), createRuleHintJudge(500));
    const j = await strict.judgeTurn({ assistantOutput: REPLY, nextState: complaintFor(['bold'], createRng(1)).text });
    expect(j.hintAccepted).toBe(false);
    expect(dispatchTurn(j)).toEqual({ mode: 'rl-only', reward: -1, hint: null });
  });
});
