// Turns successive run views into the patches the renderers receive: only
// the sessions, steps and candidates that are new or changed since the last
// update, and the header always (it is small and carries the update number).
// Comparing serialized items keeps this obviously right: whatever differs on
// screen is sent, nothing else.
import type { RunPatch, RunView } from '../contract';

export type SentState = {
  header: string;
  sessions: Map<number, string>;
  trainerSteps: Map<number, string>;
  refusedSteps: Map<string, string>;
  candidates: Map<string, string>;
  servingHistory: string;
};

export function emptySentState(): SentState {
  return { header: '', sessions: new Map(), trainerSteps: new Map(), refusedSteps: new Map(), candidates: new Map(), servingHistory: '' };
}

/** The items of `items` that are new or changed against `sent` (which is updated). */
function changed<T, K>(items: readonly T[], keyOf: (item: T) => K, sent: Map<K, string>): T[] {
  const out: T[] = [];
  for (const item of items) {
    const key = keyOf(item);
    const text = JSON.stringify(item);
    if (sent.get(key) === text) continue;
    sent.set(key, text);
    out.push(item);
  }
  return out;
}

/**
 * The patch that brings a renderer from what was sent to `next`, or null when
 * nothing changed (the header's update number aside). `reset` sends
 * everything and tells the renderer to replace what it shows.
 */
export function diffRunView(sent: SentState, next: RunView, reset: boolean): RunPatch | null {
  if (reset) Object.assign(sent, emptySentState());
  const { update: _update, ...headerContent } = next.header;
  const header = JSON.stringify(headerContent);
  const history = JSON.stringify(next.servingHistory);
  const patch: RunPatch = {
    reset,
    header: next.header,
    sessions: changed(next.sessions, (s) => s.session, sent.sessions),
    trainerSteps: changed(next.trainerSteps, (s) => s.step, sent.trainerSteps),
    refusedSteps: changed(next.refusedSteps, (s) => `${s.at}/${s.samplesThrough}`, sent.refusedSteps),
    candidates: changed(next.candidates, (c) => c.id, sent.candidates),
    servingHistory: history === sent.servingHistory ? null : next.servingHistory,
  };
  sent.servingHistory = history;
  const headerChanged = header !== sent.header;
  sent.header = header;
  const empty =
    !reset &&
    !headerChanged &&
    patch.sessions.length === 0 &&
    patch.trainerSteps.length === 0 &&
    patch.refusedSteps.length === 0 &&
    patch.candidates.length === 0 &&
    patch.servingHistory === null;
  return empty ? null : patch;
}
