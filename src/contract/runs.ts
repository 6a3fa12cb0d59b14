import { z } from 'zod';
import type { MethodTable } from './define';
import { sha256Schema } from '../core/weights/weightIds';

/**
 * Reef's curve.csv columns, in Reef's order (docs/design.md, Curve metrics). The wire shape of a
 * session row is spelled out here because this file is the contract; a test
 * (src/lab/curveColumns.test.ts) pins it to the metrics domain's
 * column list so the two cannot drift.
 */
const flag = z.union([z.literal(0), z.literal(1)]);
const rate = z.number().min(0).max(1);

export const CurveRow = z.strictObject({
  session: z.number().int().nonnegative(),
  accept: flag,
  bold: flag,
  bullets: flag,
  numbered: flag,
  list: flag,
  no_shown_work: flag,
  no_gold_answer: flag,
  style_clean: flag,
  turns: z.number().int().nonnegative(),
  first_reply_chars: z.number().int().nonnegative(),
  accept_cum: z.number().int().nonnegative(),
  accept_rate_10: rate,
  bold_rate_10: rate,
  list_rate_10: rate,
  style_clean_rate_10: rate,
});
export type CurveRow = z.infer<typeof CurveRow>;
export type CurveColumn = keyof CurveRow;

/**
 * One row of a gate.csv: a gate decision per candidate (Reef: per optimizer
 * step). A rate is null when it was not measured — GateLab writes an empty
 * cell for a candidate rejected before any probe round; only a reject can be
 * unmeasured.
 */
export const GATE_OUTCOMES = ['select', 'reject'] as const;
export type GateOutcome = (typeof GATE_OUTCOMES)[number];

export const GateRow = z.strictObject({
  step: z.number().int().nonnegative(),
  outcome: z.enum(GATE_OUTCOMES),
  clean_rate: rate.nullable(),
  best: rate.nullable(),
  answered_rate: rate.nullable(),
  gold_rate: rate.nullable(),
});
export type GateRow = z.infer<typeof GateRow>;
export type GateColumn = keyof GateRow;

export const RUN_FILE_ROLES = ['curve', 'gate'] as const;
export type RunFileRole = (typeof RUN_FILE_ROLES)[number];

export const RunFileInfo = z.strictObject({
  name: z.string(),
  role: z.enum(RUN_FILE_ROLES),
  bytes: z.number().int().nonnegative(),
  sha256: sha256Schema,
});
export type RunFileInfo = z.infer<typeof RunFileInfo>;

export const RUN_SOURCE_KINDS = ['reference', 'files'] as const;
export type RunSourceKind = (typeof RUN_SOURCE_KINDS)[number];

export const RunSummary = z.strictObject({
  id: z.string(),
  title: z.string(),
  sourceKind: z.enum(RUN_SOURCE_KINDS),
  sessionCount: z.number().int().nonnegative(),
  accepted: z.number().int().nonnegative(),
  /** sessions_to_adaptation: the session that starts the first three accepts in a row; null if never. */
  adaptationSession: z.number().int().nonnegative().nullable(),
  gateSteps: z.number().int().nonnegative().nullable(),
});
export type RunSummary = z.infer<typeof RunSummary>;

/**
 * Which experiment a curve belongs to, from its run's journal (the recipe the
 * run started with): the recipe's name, its seed, and its arm — `control`
 * for a run that serves the base model throughout to measure what training
 * adds, `trained` otherwise (and for a recipe that names no arm) — and the
 * preference its user states, if any (the run's accept is that preference met).
 */
export const RUN_ARMS = ['trained', 'control'] as const;
export type RunArm = (typeof RUN_ARMS)[number];
export const RunProvenance = z.strictObject({
  recipe: z.string(),
  seed: z.number().int().nonnegative().nullable(),
  arm: z.enum(RUN_ARMS),
  /** The preference the recipe's user states (its `preference.statement`); absent for a recipe with none. */
  preference: z.string().optional(),
});
export type RunProvenance = z.infer<typeof RunProvenance>;

export const LoadedRun = z.strictObject({
  summary: RunSummary,
  files: z.array(RunFileInfo),
  columns: z.array(z.string()),
  sessions: z.array(CurveRow),
  gate: z.strictObject({ columns: z.array(z.string()), steps: z.array(GateRow) }).nullable(),
  /** Problems that do not stop the run from loading, e.g. derived columns that disagree with the per-session ones. */
  warnings: z.array(z.string()),
  /** Absent when the curve came without its run's journal (picked files, a reference). */
  provenance: RunProvenance.optional(),
});
export type LoadedRun = z.infer<typeof LoadedRun>;

/**
 * The published result the curve viewer marks on every chart: Reef's result
 * for a recipe and model (the ungated openclawrl recipe on
 * Qwen3-4B-Thinking-2507), which is not any shipped run — so every place it
 * is shown names what it is.
 */
export const PublishedResult = z.strictObject({
  adaptationSession: z.number().int().nonnegative(),
  curveSessions: z.number().int().positive(),
  recipe: z.string(),
  model: z.string(),
  gated: z.boolean(),
  /** The chart marker's text, naming the run it belongs to. */
  label: z.string(),
  /** What the result is and where it comes from, in a sentence or two. */
  source: z.string(),
});
export type PublishedResult = z.infer<typeof PublishedResult>;

export const ReferenceRunInfo = z.strictObject({
  id: z.string(),
  title: z.string(),
  model: z.string(),
  gated: z.boolean(),
  date: z.string(),
  description: z.string(),
  /** What the run reached, and why (e.g. why adaptation was never reached). */
  outcome: z.string(),
  sessions: z.number().int().nonnegative(),
});
export type ReferenceRunInfo = z.infer<typeof ReferenceRunInfo>;

/** Upper bound on one CSV sent through the API; a 72-session curve is ~3.5 KB. */
export const MAX_RUN_FILE_CHARS = 4 * 1024 * 1024;

export const RunFileText = z.strictObject({
  name: z.string().min(1).max(255),
  text: z.string().max(MAX_RUN_FILE_CHARS),
});
export type RunFileText = z.infer<typeof RunFileText>;

export const runsMethods = {
  'runs.listReferences': {
    summary: 'The reference runs shipped with the app and the published result they are compared with.',
    params: z.strictObject({}),
    result: z.strictObject({ published: PublishedResult, runs: z.array(ReferenceRunInfo) }),
  },
  'runs.openReference': {
    summary: 'Load a shipped reference run (its hashes are checked first), to view it or to draw it behind another run as an overlay.',
    params: z.strictObject({
      id: z.string().min(1).max(200),
      purpose: z.enum(['view', 'overlay']).default('view'),
    }),
    result: LoadedRun,
  },
  'runs.openFiles': {
    summary:
      "Load a run from the text of its curve.csv and, optionally, its gate.csv (told apart by their headers): to view it, or to compare it, under its run's name when the renderer knows it.",
    params: z.strictObject({
      files: z.array(RunFileText).min(1).max(2),
      purpose: z.enum(['view', 'compare']).default('view'),
      /** The run's name (its folder's, when a folder was picked); default: the files' names. */
      title: z.string().trim().min(1).max(200).optional(),
      /** The first line of the picked folder's journal.jsonl (its run-started event): the run's recipe, seed and arm. */
      journalFirstLine: z.string().max(MAX_RUN_FILE_CHARS).optional(),
    }),
    result: LoadedRun,
  },
} as const satisfies MethodTable;
