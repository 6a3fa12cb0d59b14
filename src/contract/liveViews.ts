/**
 * What the desktop shows of live mode — outside clients' conversations
 * served by the gateway, recognised as sessions, judged by what came next —
 * apart from the views of a recipe's run (labRuns.ts), which carries them.
 * The bearer token is not here: it is read on request (`labLive.endpoint`),
 * so it never rides in a run update.
 */
import { z } from 'zod';

const at = z.iso.datetime();
const count = z.int().nonnegative();

/** How a conversation was recognised: OpenClaw-RL's X-Session-Id, OpenClaw's session-affinity headers, or the message prefix. */
export const RECOGNISED_BY = ['header', 'affinity', 'prefix'] as const;
export type RecognisedBy = (typeof RECOGNISED_BY)[number];

/** A conversation not yet journaled: its turns so far (journaled when it is done, goes quiet, or live mode stops). */
export const OpenConversationView = z.strictObject({
  name: z.string(),
  recognisedBy: z.enum(RECOGNISED_BY),
  turns: count,
  /** Replies judged so far (a reply is judged once the next request shows what came after it). */
  judged: count,
  /** Judged turns that will train once the session is journaled. */
  toTrain: count,
  /** Side turns served for it — an agent's helper runs (compaction, memory flush) — shown, never part of it, never trained. */
  helperTurns: count,
  lastTurnAt: at,
  /** A person asked to keep it out of training (the reason): it is excluded the moment it is journaled. */
  exclusion: z.string().nullable(),
});
export type OpenConversationView = z.infer<typeof OpenConversationView>;

/** Where a client connects while live mode serves in this lab (the token: `labLive.endpoint`). */
export const LiveServingView = z.strictObject({ baseUrl: z.string(), model: z.string() });
export type LiveServingView = z.infer<typeof LiveServingView>;

/** A live-mode run's header part: null on a run of the recipe's tasks. */
export const LiveHeaderView = z.strictObject({
  /** Null when live mode does not serve in this lab (stopped, opened from disk, or run by another process). */
  serving: LiveServingView.nullable(),
  open: z.array(OpenConversationView),
});
export type LiveHeaderView = z.infer<typeof LiveHeaderView>;

/** A session a person excluded from training (the journal's `session-excluded`). */
export const SessionExclusionView = z.strictObject({
  at,
  reason: z.string(),
  /** Candidates whose trainer step had already used the session when it was excluded (a step cannot be untrained). */
  trainedIn: z.array(z.string()),
});
export type SessionExclusionView = z.infer<typeof SessionExclusionView>;

/** What a session's training came to: its judged turns, the samples it gave, the steps that used them, its exclusion. */
export const SessionTrainingView = z.strictObject({
  /** Replies judged in it; null when the journal does not say (a run of the recipe's tasks). */
  judgedTurns: count.nullable(),
  samples: count,
  /** The PRM's mean score over its judged turns; null when none was judged. */
  prmMean: z.number().nullable(),
  /** The trainer steps whose batch held its turns (with the candidate each made). */
  trainedIn: z.array(z.strictObject({ step: z.int().positive(), version: z.string() })),
  excluded: SessionExclusionView.nullable(),
});
export type SessionTrainingView = z.infer<typeof SessionTrainingView>;

/** A journaled live session: how it was recognised, and its training. */
export const LiveSessionView = z.strictObject({
  name: z.string(),
  /** Null when its transcript could not be read. */
  recognisedBy: z.enum(RECOGNISED_BY).nullable(),
});
export type LiveSessionView = z.infer<typeof LiveSessionView>;
