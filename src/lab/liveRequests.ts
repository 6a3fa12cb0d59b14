// A person's requests about live mode on the run on screen: where a client
// connects (the token is read here, on request, and never logged), a live
// session's whole transcript, and excluding a session from training. The
// exclusion is the journal's append-only `session-excluded` event, written
// where the run's journal is held — by the process that serves it (its
// control endpoint), by this lab's LiveRun, or under the run's lock when
// nothing runs it — exactly as `gatelab exclude` writes it.
import type { LiveEndpointView, LiveTranscriptView } from '../contract';
import { LabError } from '../contract';
import { excludeSessionOffline } from '../run/live/excludeSession';
import type { ControlRequest } from '../surfaces/control/controlServer';
import { refreshFromDisk } from './journalFollower';
import { asLabError } from './labErrors';
import { liveTranscriptView, readLiveTranscriptFile } from './liveTranscript';
import { liveModeOf, type OpenRun } from './openRun';
import type { RequestRoute } from './requestRouting';
import { isLiveSessionEvent } from './sessionDetails';
import { sessionTrainings } from './sessionTraining';

/** The reason written when the person gives none (the journal's event always says one). */
export const DEFAULT_EXCLUSION_REASON = 'excluded by a person in the desktop';

export type LiveRequestDeps = {
  current: () => OpenRun;
  route: <T>(run: OpenRun, request: ControlRequest, route: RequestRoute<T>) => Promise<T>;
  log: (line: string) => void;
};

export class LiveRequests {
  constructor(private readonly deps: LiveRequestDeps) {}

  endpoint(): LiveEndpointView {
    const live = liveModeOf(this.deps.current());
    if (live === null) throw new LabError('conflict', 'live mode does not serve here: start it, or continue this live run, first');
    return { ...live.endpoint };
  }

  async transcript(session: number): Promise<LiveTranscriptView> {
    const c = this.deps.current();
    const event = c.events.find((e) => e.type === 'session-completed' && e.session === session);
    if (!event || event.type !== 'session-completed') throw new LabError('not-found', `session ${session} of this run is not journaled`);
    if (!isLiveSessionEvent(event)) throw new LabError('not-found', `session ${session} is a session of the recipe's tasks, not a live conversation`);
    const training = sessionTrainings(c.events).get(session);
    try {
      if (!training) throw new Error(`session ${session} has no training record`);
      return liveTranscriptView(await readLiveTranscriptFile(c.runDir, event), training);
    } catch (error) {
      throw new LabError('not-found', (error as Error).message);
    }
  }

  async exclude(session: number, reason: string): Promise<{ session: number; trainedIn: string[] }> {
    const c = this.deps.current();
    const why = reasonOf(reason);
    let outcome: { session: number; trainedIn: string[] };
    if (c.held.kind === 'disk' && c.held.heldBy === null) {
      // Nothing runs it: the event is appended under the run's lock, no engine started for it.
      try {
        outcome = await excludeSessionOffline(c.runDir, session, why);
      } catch (error) {
        throw asLabError(error);
      }
      await refreshFromDisk(c);
      c.updates.mark();
    } else {
      outcome = await this.deps.route(c, { action: 'exclude', session, reason: why }, { here: (run) => run.exclude(session, why), there: exclusionOf });
    }
    const used = outcome.trainedIn.length === 0 ? 'no trainer step had used it' : `steps that had already used it made ${outcome.trainedIn.join(', ')}`;
    this.deps.log(`Session ${session} excluded from training (${why}); ${used}.`);
    return outcome;
  }

  /** Keeps a conversation still open out of training: excluded the moment live mode journals it (only where this lab serves it). */
  excludeOpen(name: string, reason: string): { name: string } {
    const live = liveModeOf(this.deps.current());
    if (live === null) throw new LabError('conflict', 'live mode does not serve here: only a journaled session can be excluded now');
    const why = reasonOf(reason);
    if (!live.sessions.excludeWhenJournaled(name, why))
      throw new LabError('not-found', `no open conversation ${name}: it may have been journaled meanwhile — exclude its session`);
    this.deps.log(`Conversation ${name} will be excluded from training when it is journaled (${why}).`);
    return { name };
  }
}

/** The exclusion's reason as written: the person's words, else the default. */
function reasonOf(reason: string): string {
  return reason.trim() === '' ? DEFAULT_EXCLUSION_REASON : reason.trim();
}

/** Another process's answer to an exclude request, read back. */
function exclusionOf(result: unknown): { session: number; trainedIn: string[] } {
  const r = result as { session?: unknown; trainedIn?: unknown } | null;
  if (typeof r?.session !== 'number' || !Array.isArray(r.trainedIn) || !r.trainedIn.every((v) => typeof v === 'string')) {
    throw new Error('the run answered the exclusion without its session and versions');
  }
  return { session: r.session, trainedIn: r.trainedIn };
}
