// The rule-based PRM and hint judge for the embedded recipe: it reads the
// scripted student's reaction the way the PRM is asked to (progress vs
// correction vs ambiguous), using the student's wording, which is a contract
// (docs/internals.md, src/core/tasks/student.ts):
//   complaint                       → -1, hint = its sentences after the opener
//   save request or HOMEWORK_DONE,
//   or the preference user's thanks → +1, no hint
//   anything else                   →  0, no hint
// The assistant's output is not read: like the PRM, the rule judges a turn
// by what happened next.

import { DONE, parseComplaint, PREFERENCE_THANKS } from '../tasks/student';
import { DEFAULT_HINT_MIN_CHARS, isHintAccepted, type HintJudge, type PrmJudge, type PrmScore, type TurnJudgeInput } from './turnJudge';

// The student's save request: "Great, that looks right. Please append the answers to homework/<index>.txt."
const SAVE_REQUEST_RE = /\bplease append the answers? to homework\/\d+\.txt\b/iu;

export function ruleScore(nextState: string): PrmScore {
  if (parseComplaint(nextState.trim()) !== null) return -1;
  if (SAVE_REQUEST_RE.test(nextState) || nextState.includes(DONE) || nextState.trim() === PREFERENCE_THANKS) return 1;
  return 0;
}

export function ruleHint(nextState: string): string | undefined {
  const complaint = parseComplaint(nextState.trim());
  return complaint === null || complaint.hindsight === '' ? undefined : complaint.hindsight;
}

export function createRulePrm(): PrmJudge {
  return {
    kind: 'rule',
    score: async ({ nextState }: TurnJudgeInput) => {
      const score = ruleScore(nextState);
      // One deterministic vote: asking a rule m times would only repeat it.
      return { score, votes: [score], transcripts: [], errors: [] };
    },
  };
}

export function createRuleHintJudge(minChars = DEFAULT_HINT_MIN_CHARS): HintJudge {
  return {
    kind: 'rule',
    extractHint: async ({ nextState }: TurnJudgeInput) => {
      const hint = ruleHint(nextState);
      return {
        ...(hint === undefined ? {} : { hint }),
        hintAccepted: isHintAccepted(hint, minChars),
        transcripts: [],
        errors: [],
      };
    },
  };
}
