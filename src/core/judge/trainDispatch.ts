// What a judged turn trains (docs/design.md, How a judged turn trains): the dispatch table of OpenClaw-RL's
// combined objective, in one place.
//
//   hint accepted | eval ±1 | trains
//   yes           | yes     | both terms: RL with reward ±1, OPD with the hinted teacher
//   yes           | no (0)  | OPD only (reward 0)
//   no            | yes     | RL only (the teacher is the response itself: OPD ≈ 0)
//   no            | no (0)  | nothing: the turn does not train

import type { PrmScore, TurnJudgment } from './turnJudge';

export const TRAINING_MODES = ['both', 'opd-only', 'rl-only', 'none'] as const;
export type TrainingMode = (typeof TRAINING_MODES)[number];

export type TurnTraining =
  | { readonly mode: 'both'; readonly reward: -1 | 1; readonly hint: string }
  | { readonly mode: 'opd-only'; readonly reward: 0; readonly hint: string }
  | { readonly mode: 'rl-only'; readonly reward: -1 | 1; readonly hint: null }
  | { readonly mode: 'none'; readonly reward: 0; readonly hint: null };

/** Decides what a judged turn contributes to the trainer's batch. */
export function dispatchTurn(judgment: Pick<TurnJudgment, 'score' | 'hint' | 'hintAccepted'>): TurnTraining {
  const hint = judgment.hintAccepted && judgment.hint !== undefined ? judgment.hint : null;
  const score: PrmScore = judgment.score;
  if (hint !== null) {
    return score === 0 ? { mode: 'opd-only', reward: 0, hint } : { mode: 'both', reward: score, hint };
  }
  return score === 0 ? { mode: 'none', reward: 0, hint: null } : { mode: 'rl-only', reward: score, hint: null };
}

/** Whether a mode puts the turn in a training batch at all. */
export function trains(mode: TrainingMode): boolean {
  switch (mode) {
    case 'both':
    case 'opd-only':
    case 'rl-only':
      return true;
    case 'none':
      return false;
    default: {
      const unreachable: never = mode;
      throw new Error(`unknown training mode ${String(unreachable)}`);
    }
  }
}
