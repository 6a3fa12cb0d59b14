import { describe, expect, test } from 'vitest';
import { BAD_CANDIDATE_KINDS, CANDIDATE_STATES, GATED_METRICS, MARKER_KINDS, REJECT_REASONS, REJECTION_CODES } from '../contract';
import type { CandidateState } from '../core/gate/gateState';
import { MARKER_KINDS as JUDGE_MARKER_KINDS, REJECT_REASONS as JUDGE_REJECT_REASONS } from '../core/judge/criterion';
import { badCandidateKinds, rejectionCodes } from '../core/journal/journalEvents';
import { marginsSchema } from '../core/recipe/recipeSchema';

// The labRuns contract spells out its enumerations (the renderer cannot
// import the lab); these pin each one to the lab's own list.
describe('the labRuns contract matches the lab', () => {
  test('bad-candidate kinds, rejection codes, marker kinds and reject reasons', () => {
    expect([...BAD_CANDIDATE_KINDS]).toEqual([...badCandidateKinds]);
    expect([...REJECTION_CODES]).toEqual([...rejectionCodes]);
    expect([...MARKER_KINDS]).toEqual([...JUDGE_MARKER_KINDS]);
    expect([...REJECT_REASONS]).toEqual([...JUDGE_REJECT_REASONS]);
  });

  test('the gated metrics are the recipe\'s margins', () => {
    expect([...GATED_METRICS].sort()).toEqual(Object.keys(marginsSchema.shape).sort());
  });

  test('the candidate states are the gate\'s', () => {
    // A state the gate adds fails to compile here until the contract lists it.
    const states: Record<CandidateState['kind'], true> = {
      staged: true, verified: true, probing: true, 'awaiting-confirm': true, confirmed: true, promoted: true, rejected: true, superseded: true,
    };
    expect([...CANDIDATE_STATES].sort()).toEqual(Object.keys(states).sort());
  });
});
