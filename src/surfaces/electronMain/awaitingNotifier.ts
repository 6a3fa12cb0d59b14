// An OS notification when a candidate starts waiting for the person's
// decision in any run the lab follows, so a waiting candidate is impossible
// to miss even with the window in the background or another run on screen.
// Pure (no electron import): main passes the function that shows a notification.
import type { EventPayload } from '../../contract';
import type { LabEventBus } from '../../lab/eventBus';

export type AwaitingNotice = { title: string; body: string; runDir: string; candidate: string };

/**
 * Calls `notify` once per candidate that starts waiting, from the lab-wide
 * list (`labRuns.awaitingChanged`). The first list the lab sends is what
 * already waited when it started: the top bar shows those; a candidate that
 * starts waiting afterwards, in whichever run, is announced.
 */
export function notifyAwaitingCandidates(events: LabEventBus, notify: (notice: AwaitingNotice) => void): () => void {
  let known: Set<string> | null = null;
  return events.subscribe((event, payload) => {
    if (event !== 'labRuns.awaitingChanged') return;
    const view = payload as EventPayload<'labRuns.awaitingChanged'>;
    const now = new Set<string>();
    for (const run of view.runs) {
      for (const c of run.candidates) {
        const key = `${run.runDir}\n${c.id}`;
        now.add(key);
        if (known === null || known.has(key)) continue;
        notify({
          title: `GateLab: ${c.id} awaits your decision`,
          body: `${c.id} (${c.version}) passed ${c.passedRounds} probe rounds against ${c.probedAgainst} in ${run.runId}. It waits until you confirm or reject it.`,
          runDir: run.runDir,
          candidate: c.id,
        });
      }
    }
    known = now;
  });
}
