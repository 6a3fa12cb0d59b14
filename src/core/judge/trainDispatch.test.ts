import { describe, expect, it } from 'vitest';
import { TRAINING_MODES, dispatchTurn, trains, type TurnTraining } from './trainDispatch';
import type { PrmScore } from './turnJudge';

const HINT = 'Drop the bold and write plain sentences. Keep every step.';

// docs/design.md, How a judged turn trains: hint accepted and eval ±1 → both; hint only → OPD only (reward 0);
// eval ±1 only → RL only; neither → the turn does not train.
const table: [string, { score: PrmScore; hint?: string; hintAccepted: boolean }, TurnTraining][] = [
  ['hint and -1 → both', { score: -1, hint: HINT, hintAccepted: true }, { mode: 'both', reward: -1, hint: HINT }],
  ['hint and +1 → both', { score: 1, hint: HINT, hintAccepted: true }, { mode: 'both', reward: 1, hint: HINT }],
  ['hint and 0 → OPD only', { score: 0, hint: HINT, hintAccepted: true }, { mode: 'opd-only', reward: 0, hint: HINT }],
  ['-1 without hint → RL only', { score: -1, hintAccepted: false }, { mode: 'rl-only', reward: -1, hint: null }],
  ['+1 without hint → RL only', { score: 1, hintAccepted: false }, { mode: 'rl-only', reward: 1, hint: null }],
  ['0 without hint → none', { score: 0, hintAccepted: false }, { mode: 'none', reward: 0, hint: null }],
  ['a rejected (too short) hint is no hint: -1 → RL only', { score: -1, hint: 'too short', hintAccepted: false }, { mode: 'rl-only', reward: -1, hint: null }],
  ['a rejected hint and 0 → none', { score: 0, hint: 'too short', hintAccepted: false }, { mode: 'none', reward: 0, hint: null }],
];

describe('dispatchTurn', () => {
  it.each(table)('%s', (_name, judgment, want) => {
    expect(dispatchTurn(judgment)).toEqual(want);
  });

  it('covers every mode, and only "none" stays out of the batch', () => {
    expect(new Set(table.map(([, , t]) => t.mode))).toEqual(new Set(TRAINING_MODES));
    expect(TRAINING_MODES.filter(trains)).toEqual(['both', 'opd-only', 'rl-only']);
  });
});
