// An OS notification when a candidate starts waiting for the person's
// decision, so a waiting candidate is impossible to miss even with the
// window in the background. Pure (no electron import): main passes the
// function that shows a notification.
import type { EventPayload } from '../contract';
import type { LabEventBus } from '../lab/app/eventBus';

export type AwaitingNotice = { title: string; body: string; runDir: string; candidate: string };

/**
 * Calls `notify` once per candidate that becomes `awaiting-confirm` in a run
 * update. A run opened with candidates already waiting (a reset update) shows
 * them on its page; only a candidate that starts waiting while it is watched
 * is announced.
 */
export function notifyAwaitingCandidates(events: LabEventBus, notify: (notice: AwaitingNotice) => void): () => void {
  const announced = new Set<string>();
  return events.subscribe((event, payload) => {
    if (event !== 'liveRuns.changed') return;
    const patch = payload as EventPayload<'liveRuns.changed'>;
    for (const c of patch.candidates) {
      const key = `${patch.header.runDir}\n${c.id}`;
      if (c.state !== 'awaiting-confirm' || announced.has(key)) continue;
      announced.add(key);
      if (patch.reset) continue;
      notify({
        title: `GateLab: ${c.id} awaits your decision`,
        body: `${c.id} (${c.version}) passed ${c.passedRounds} of ${c.roundsRequired} probe rounds in ${patch.header.runId}. It waits until you confirm or reject it.`,
        runDir: patch.header.runDir,
        candidate: c.id,
      });
    }
  });
}
