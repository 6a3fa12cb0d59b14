import type { CandidateView } from '../../../src/contract/labRuns';

export type StepStatus = 'done' | 'current' | 'failed' | 'pending' | 'skipped';

export interface LifecycleStep {
  key: string;
  label: string;
  status: StepStatus;
}

/** Rejections decided by verify, before any probe (docs/design.md, Verify: failing candidates never reach a probe). */
const VERIFY_CODES = new Set(['unreadable', 'hash-mismatch', 'tensor-spec', 'non-finite', 'update-norm']);

/**
 * A candidate's walk through the gate as steps a person can read:
 * staged → verified → probing round k of n → awaiting confirm → promoted,
 * with the step where it was rejected (or superseded) marked, and the later
 * steps skipped.
 */
export function lifecycleSteps(c: CandidateView): LifecycleStep[] {
  const steps: LifecycleStep[] = [{ key: 'staged', label: 'staged', status: 'done' }];
  const rejected = c.state === 'rejected' ? c.reason : null;
  const stopped = c.state === 'rejected' || c.state === 'superseded';
  let ended = false;
  const next = (key: string, label: string, done: boolean, current: boolean, failed: boolean): void => {
    let status: StepStatus;
    if (ended) status = 'skipped';
    else if (failed) status = 'failed';
    else if (done) status = 'done';
    else if (current) status = 'current';
    else status = stopped ? 'skipped' : 'pending';
    if (failed || (stopped && !done)) ended = true;
    steps.push({ key, label, status });
  };

  const verifyFailed = rejected !== null && VERIFY_CODES.has(rejected.code);
  next('verified', 'verified', c.verifiedAt !== null, c.state === 'staged', verifyFailed);
  for (let round = 1; round <= c.roundsRequired; round++) {
    const result = c.rounds.find((r) => r.round === round);
    const probeFailed =
      (result !== undefined && !result.passed) ||
      (rejected !== null && rejected.code === 'probe-error' && round === c.passedRounds + 1) ||
      (rejected !== null && rejected.code === 'person' && round === c.passedRounds + 1 && c.passedRounds < c.roundsRequired && round === c.probingRound);
    next(`round-${round}`, `round ${round}/${c.roundsRequired}`, result?.passed === true, c.probingRound === round, probeFailed);
  }
  const passedAll = c.passedRounds >= c.roundsRequired;
  const decided = c.state === 'confirmed' || c.state === 'promoted';
  const personRejectedAtConfirm = rejected !== null && rejected.code === 'person' && passedAll;
  next('awaiting-confirm', 'awaiting confirm', decided, c.state === 'awaiting-confirm', personRejectedAtConfirm);
  next('promoted', 'promoted', c.state === 'promoted', c.state === 'confirmed', rejected !== null && rejected.code === 'promote-verify');
  return steps;
}

/** The candidate's state in one phrase: "probing round 2/3", "rejected (regression)", … */
export function stateLabel(c: CandidateView): string {
  switch (c.state) {
    case 'probing':
      if (c.heldForPerson) return `held for your decision (${c.passedRounds}/${c.roundsRequired} rounds passed)`;
      return c.probingRound === null ? `probing: ${c.passedRounds}/${c.roundsRequired} rounds passed` : `probing round ${c.probingRound}/${c.roundsRequired}`;
    case 'rejected':
      return `rejected (${c.reason?.code ?? '?'})`;
    case 'superseded':
      return `superseded by ${c.supersededBy ?? '?'}`;
    case 'confirmed':
      return `confirmed by ${c.confirmedBy ?? '?'}, promoting`;
    case 'awaiting-confirm':
      return 'awaiting confirmation';
    case 'verified':
      return c.heldForPerson ? 'verified · held for your decision' : c.state;
    case 'staged':
    case 'promoted':
      return c.state;
  }
}

export function sourceLabel(c: CandidateView): string {
  switch (c.source.kind) {
    case 'trainer':
      return `trainer step ${c.source.step}`;
    case 'inject':
      return `injected: ${c.source.badKind}`;
    case 'file':
      return `adapter file ${c.source.path.split('/').at(-1) ?? c.source.path}`;
  }
}
