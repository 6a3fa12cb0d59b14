// Where a person's request to a run's gate goes. Exactly one place decides
// for a run at a time: the process that runs it, when another process does
// (asked through its control endpoint); else this process's LiveRun — the
// one whose sessions run here, or the run opened here with its gate and probe
// engine only for the decision.
import { askLiveRun, type ControlRequest } from '../surfaces/control/controlServer';
import type { LiveRun } from '../run/liveRun';
import { refreshFromDisk } from './journalFollower';
import { asLabError } from './labErrors';
import type { OpenRun } from './openRun';

export type RequestRoute<T> = {
  /** The request on this process's LiveRun. */
  here: (run: LiveRun) => Promise<T>;
  /** The answer of the process that runs it, read back. */
  there: (result: unknown) => T;
};

export type RoutingDeps = {
  /** This process's LiveRun for the run: the one held, or its gate opened now. */
  liveRunFor: (run: OpenRun) => Promise<LiveRun>;
  /** After a request decided here: its changes go out at once. */
  decidedHere: (run: OpenRun) => Promise<void>;
};

export async function routeRequest<T>(run: OpenRun, request: ControlRequest, route: RequestRoute<T>, deps: RoutingDeps): Promise<T> {
  try {
    if (run.held.kind === 'disk' && run.held.heldBy !== null) {
      const answer = await askLiveRun(run.runDir, request);
      if (answer) {
        await refreshFromDisk(run);
        return route.there(answer.result);
      }
      // No answer: that process has let go meanwhile; decide here.
    }
    const live = await deps.liveRunFor(run);
    const result = await route.here(live);
    await deps.decidedHere(run);
    return result;
  } catch (error) {
    throw asLabError(error);
  }
}

/** The candidate id in another process's answer to an inject request. */
export function candidateIdOf(result: unknown): string {
  const id = (result as { id?: unknown } | null)?.id;
  if (typeof id !== 'string') throw new Error('the run answered without a candidate id');
  return id;
}
