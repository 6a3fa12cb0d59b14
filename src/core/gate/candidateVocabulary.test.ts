import { describe, expect, test } from 'vitest';
import { marginsSchema } from '../recipe/recipeSchema';
import { CANDIDATE_STATES, GATED_METRICS, type CandidateStateName } from './candidateVocabulary';
import type { CandidateState } from './gateState';

// The lists the contract shows are the ones the gate acts on.
describe('the candidate vocabulary', () => {
  test("the candidate states are the gate's", () => {
    // A state the gate adds fails to compile here until the list names it (and the other way round).
    const states: Record<CandidateState['kind'], true> = {
      staged: true,
      verified: true,
      probing: true,
      'awaiting-confirm': true,
      confirmed: true,
      promoted: true,
      rejected: true,
      superseded: true,
    };
    const named: Record<CandidateStateName, true> = states;
    expect([...CANDIDATE_STATES].sort()).toEqual(Object.keys(named).sort());
  });

  test("the gated metrics are the recipe's margins", () => {
    expect([...GATED_METRICS].sort()).toEqual(Object.keys(marginsSchema.shape).sort());
  });
});
