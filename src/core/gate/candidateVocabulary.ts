// The names the release gate and its journal give candidates: where a bad
// one came from, the states every candidate passes through, why one was
// rejected, and the metrics a probe round is gated on. Defined here once:
// the journal's schema, the gate, the CLI and the desktop's contract import
// them. Pure data (no imports), so the renderer may reach it through the
// contract.

/** A candidate's id in its run: `c<n>`, in staging order. */
export const CANDIDATE_ID_PATTERN = /^c\d+$/;

/** The deliberately bad candidates a person (or the bench) can inject. */
export const BAD_CANDIDATE_KINDS = ['random-noise', 'reward-inverted', 'collapsed', 'nan-inf', 'wrong-shape', 'corrupted-bytes'] as const;
export type BadCandidateKind = (typeof BAD_CANDIDATE_KINDS)[number];

/** Why the gate (or a person) rejected a candidate. */
export const REJECTION_CODES = [
  'unreadable', // the blob cannot be read or parsed as safetensors
  'hash-mismatch', // content hash differs from the manifest
  'tensor-spec', // names, shapes or dtypes differ from the base's adapter spec
  'non-finite', // NaN or Inf among the values
  'update-norm', // the update is larger than the recipe's bound
  'regression', // a probe round regressed against serving (the metric is in detail)
  'probe-error', // the probe engine failed; fail closed
  'promote-verify', // the blob changed between probing and promotion
  'person', // a person rejected it
] as const;
export type RejectionCode = (typeof REJECTION_CODES)[number];

/** The states of a candidate, in the order it can pass through them (gateState.ts folds the journal into them). */
export const CANDIDATE_STATES = ['staged', 'verified', 'probing', 'awaiting-confirm', 'confirmed', 'promoted', 'rejected', 'superseded'] as const;
export type CandidateStateName = (typeof CANDIDATE_STATES)[number];

/** Who confirmed a candidate: the gate itself (confirm: auto) or a person. */
export const CONFIRMERS = ['auto', 'person'] as const;
export type Confirmer = (typeof CONFIRMERS)[number];

/** The metrics a probe round is gated on, each with the recipe's margin (never the style rate alone). */
export const GATED_METRICS = ['pass_rate', 'gold_rate', 'answered_rate', 'mean_violations'] as const;
export type GatedMetric = (typeof GATED_METRICS)[number];
