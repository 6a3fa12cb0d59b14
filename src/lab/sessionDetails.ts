// Reads what the run view shows of a session from its transcript
// (runs/<id>/sessions/NNN.json, written by the run before the session's
// journal event): the task, the first reply, the criterion's verdict on it
// and the student's reaction. Validated at this boundary; a transcript that
// does not parse is reported, never shown half-read.
import type { JournalEvent } from '../core/journal/journalEvents';
import { liveSessionDetail, readLiveTranscriptFile } from './liveTranscript';
import type { SessionDetail } from './runView';
import { hintOf, readTranscriptFile } from './sessionTranscript';
import { verdictView } from './storedVerdict';

type SessionEvent = Extract<JournalEvent, { type: 'session-completed' }>;

/** A live-mode session (an outside client's conversation) is journaled with a task id of `live:<its name>`. */
export const isLiveSessionEvent = (event: SessionEvent): boolean => event.taskId.startsWith('live:');

export async function readSessionDetail(runDir: string, event: SessionEvent): Promise<SessionDetail> {
  if (isLiveSessionEvent(event)) return liveSessionDetail(await readLiveTranscriptFile(runDir, event));
  const parsed = await readTranscriptFile(runDir, event);
  const first = parsed.turns[0]!;
  const v = parsed.firstVerdict;
  return {
    question: parsed.task.question,
    gold: parsed.task.answer,
    firstReply: first.reply,
    version: first.version,
    reaction: first.nextState,
    reward: first.judgment?.score ?? null,
    hint: hintOf(first.judgment),
    verdict: verdictView(v),
    live: null,
  };
}

function unreadable(event: SessionEvent, message: string): SessionDetail {
  return {
    question: `(the transcript could not be read: ${message})`,
    gold: null,
    firstReply: '',
    version: event.versions[0] ?? 'base',
    reaction: null,
    reward: null,
    hint: null,
    verdict: { accepted: event.accepted, reason: null, failures: [], markers: [], shownWork: [], goldAt: null },
    live: isLiveSessionEvent(event) ? { name: event.taskId.slice('live:'.length), recognisedBy: null } : null,
  };
}

/**
 * A cache of session details by session number: transcripts never change
 * once their session is journaled, so each is read once per run view.
 */
export class SessionDetailCache {
  private readonly details = new Map<number, SessionDetail>();

  constructor(private readonly runDir: string) {}

  get all(): ReadonlyMap<number, SessionDetail> {
    return this.details;
  }

  /**
   * Reads the transcripts of sessions not read yet; returns the problems. A
   * missing or damaged transcript is shown as such (its curve row still
   * comes from the journal), never as an empty reply that looks real.
   */
  async load(events: readonly JournalEvent[]): Promise<string[]> {
    const problems: string[] = [];
    for (const e of events) {
      if (e.type !== 'session-completed' || this.details.has(e.session)) continue;
      try {
        this.details.set(e.session, await readSessionDetail(this.runDir, e));
      } catch (error) {
        const message = (error as Error).message;
        problems.push(message);
        this.details.set(e.session, unreadable(e, message));
      }
    }
    return problems;
  }
}
