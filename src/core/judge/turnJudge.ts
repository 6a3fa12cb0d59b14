// The turn judge's one interface (docs/design.md, Learning from usage): a judged main turn
// is the assistant's output and the next state (what the user or environment
// did next). The PRM turns that pair into an evaluative score; the hint judge
// turns it into a directive hint when the next state carries hindsight.
// Back ends: rule-based (ruleJudge.ts) and any OpenAI-compatible endpoint
// (llmJudge.ts); createTurnJudge.ts builds one from the recipe.

export type PrmScore = -1 | 0 | 1;

export type TurnJudgeInput = {
  /** The assistant's reply being judged. */
  readonly assistantOutput: string;
  /** The next state: the user's reply (or environment feedback) that followed it. */
  readonly nextState: string;
};

export type PrmJudgment = {
  /** Plurality of the valid votes; a tie or no valid vote is 0. */
  readonly score: PrmScore;
  /** Every vote in order; null where a vote was not valid (no \boxed score, or the request failed). */
  readonly votes: readonly (PrmScore | null)[];
  /** What each vote's judge wrote (empty for the rule judge), for the journal. */
  readonly transcripts: readonly string[];
  /** Requests that failed, for the journal (the votes they would have given are null). */
  readonly errors: readonly string[];
};

export type HintJudgment = {
  /** The best hint candidate (the longest from a positive decision), if any. */
  readonly hint?: string;
  /** True iff there is a hint and it is longer than the judge's minimum (10 characters by default). */
  readonly hintAccepted: boolean;
  readonly transcripts: readonly string[];
  readonly errors: readonly string[];
};

export type TurnJudgment = {
  readonly score: PrmScore;
  readonly votes: readonly (PrmScore | null)[];
  readonly hint?: string;
  readonly hintAccepted: boolean;
  /** Which back ends judged: e.g. { prm: 'rule', hint: 'openai' }. */
  readonly backends: { readonly prm: JudgeBackendKind; readonly hint: JudgeBackendKind };
  readonly transcripts: { readonly prm: readonly string[]; readonly hint: readonly string[] };
  readonly errors: readonly string[];
};

export type JudgeBackendKind = 'rule' | 'openai';

export interface PrmJudge {
  readonly kind: JudgeBackendKind;
  score(input: TurnJudgeInput): Promise<PrmJudgment>;
}

export interface HintJudge {
  readonly kind: JudgeBackendKind;
  extractHint(input: TurnJudgeInput): Promise<HintJudgment>;
}

export interface TurnJudge {
  judgeTurn(input: TurnJudgeInput): Promise<TurnJudgment>;
}

/** OpenClaw-RL accepts a hint when it is longer than 10 characters. */
export const DEFAULT_HINT_MIN_CHARS = 10;

export function isHintAccepted(hint: string | undefined, minChars = DEFAULT_HINT_MIN_CHARS): boolean {
  return hint !== undefined && hint.trim().length > minChars;
}

/** A PRM and a hint judge asked together about the same turn. */
export function composeTurnJudge(prm: PrmJudge, hint: HintJudge): TurnJudge {
  return {
    async judgeTurn(input) {
      const [p, h] = await Promise.all([prm.score(input), hint.extractHint(input)]);
      return {
        score: p.score,
        votes: p.votes,
        ...(h.hint === undefined ? {} : { hint: h.hint }),
        hintAccepted: h.hintAccepted,
        backends: { prm: prm.kind, hint: hint.kind },
        transcripts: { prm: p.transcripts, hint: h.transcripts },
        errors: [...p.errors, ...h.errors],
      };
    },
  };
}
