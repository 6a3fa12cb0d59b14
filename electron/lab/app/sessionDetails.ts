// Reads what the run view shows of a session from its transcript
// (runs/<id>/sessions/NNN.json, written by the run before the session's
// journal event): the task, the first reply, the criterion's verdict on it
// and the student's reaction. Validated at this boundary; a transcript that
// does not parse is reported, never shown half-read.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { JournalEvent } from '../journal/journalEvents';
import type { SessionDetail } from './runView';
import { storedVerdictSchema, verdictView } from './storedVerdict';

const transcriptSchema = z.looseObject({
  task: z.looseObject({ id: z.string(), question: z.string(), answer: z.number() }),
  turns: z
    .array(z.looseObject({ reply: z.string(), version: z.string(), nextState: z.string().nullable() }))
    .min(1),
  firstVerdict: storedVerdictSchema,
});

type SessionEvent = Extract<JournalEvent, { type: 'session-completed' }>;

export async function readSessionDetail(runDir: string, event: SessionEvent): Promise<SessionDetail> {
  const file = path.join(runDir, event.transcript);
  let parsed;
  try {
    parsed = transcriptSchema.parse(JSON.parse(await readFile(file, 'utf8')));
  } catch (error) {
    throw new Error(`session ${event.session}: cannot read its transcript ${file}: ${(error as Error).message}`);
  }
  const first = parsed.turns[0]!;
  const v = parsed.firstVerdict;
  return {
    question: parsed.task.question,
    gold: parsed.task.answer,
    firstReply: first.reply,
    version: first.version,
    reaction: first.nextState,
    verdict: verdictView(v),
  };
}

function unreadable(event: SessionEvent, message: string): SessionDetail {
  return {
    question: `(the transcript could not be read: ${message})`,
    gold: null,
    firstReply: '',
    version: event.versions[0] ?? 'base',
    reaction: null,
    verdict: { accepted: event.accepted, reason: null, failures: [], markers: [], shownWork: [], goldAt: null },
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
