/**
 * Live mode from the desktop: start it on a recipe (the gateway serves
 * outside clients; their conversations become judged sessions that train
 * candidates behind the same gate), read where a client connects, read a
 * live session's transcript, and exclude a session from training. Stopping
 * and continuing a live run are `labRuns.stop` and `labRuns.resume`; its
 * candidates are decided with `labRuns.confirm` / `labRuns.reject`, as any
 * run's.
 */
import { z } from 'zod';
import type { MethodTable } from './define';
import { RunView, TranscriptTurnView } from './labRuns';
import { CONFIRM_MODES } from '../core/recipe/recipeSchema';
import { RECOGNISED_BY, SessionTrainingView } from './liveViews';

export * from './liveViews';

const count = z.int().nonnegative();
const recipeId = z.string().regex(/^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}\.ya?ml$/, 'a recipe file name (*.yaml)');

/** One journaled live session, whole: every turn with the next state that judged it, and its training. */
export const LiveTranscriptView = z.strictObject({
  session: count,
  name: z.string(),
  recognisedBy: z.enum(RECOGNISED_BY),
  turns: z.array(TranscriptTurnView),
  training: SessionTrainingView,
});
export type LiveTranscriptView = z.infer<typeof LiveTranscriptView>;

/** Where a client connects: the OpenAI-compatible base URL, the bearer token (a secret), the model name. */
export const LiveEndpointView = z.strictObject({ baseUrl: z.string(), token: z.string().min(16), model: z.string() });
export type LiveEndpointView = z.infer<typeof LiveEndpointView>;

export const labLiveMethods = {
  'labLive.start': {
    summary:
      'Create a live-mode run folder from a recipe and serve outside clients through the gateway: conversations become judged sessions, candidates go through the gate. At most one run of sessions at a time.',
    params: z.strictObject({
      recipe: recipeId,
      confirm: z.enum(CONFIRM_MODES).default('manual'),
      /** A conversation with no turn for this long is journaled (its last reply untrained). */
      idleSeconds: z.int().min(5).max(86_400).optional(),
      /** The served context in tokens (the recipe's policy.max_model_len otherwise); refused over the model's own, or for the embedded policy. */
      maxModelLen: z.int().min(1).max(1_048_576).optional(),
    }),
    result: RunView,
  },
  'labLive.endpoint': {
    summary: 'Where a client connects to the live run on screen: base URL, bearer token, model name. Refused when live mode does not serve here.',
    params: z.strictObject({}),
    result: LiveEndpointView,
  },
  'labLive.transcript': {
    summary: 'One journaled live session of the run on screen: every turn, the next state that judged it, its score or why it was skipped, and its training.',
    params: z.strictObject({ session: count.max(100_000) }),
    result: LiveTranscriptView,
  },
  'labLive.exclude': {
    summary:
      'Exclude a journaled session of the run on screen from training (an append-only session-excluded event); answers the candidates whose step had already used it.',
    params: z.strictObject({ session: count.max(100_000), reason: z.string().trim().max(500).default('') }),
    result: z.strictObject({ session: count, trainedIn: z.array(z.string()) }),
  },
  'labLive.excludeOpen': {
    summary:
      'Keep a conversation still open in the live run on screen out of training: it goes on, and is excluded (session-excluded) the moment it is journaled, before any step can use it.',
    params: z.strictObject({ name: z.string().min(1).max(600), reason: z.string().trim().max(500).default('') }),
    result: z.strictObject({ name: z.string() }),
  },
} as const satisfies MethodTable;
