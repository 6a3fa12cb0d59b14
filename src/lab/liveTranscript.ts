// A live session's transcript file (sessions/NNN.json, written by live mode
// before the session's journal event) read back for the desktop: each
// outside client's turn, its reply, the next state that judged it (the
// user's next message or the tool's results), the score, and why a turn gave
// no sample. Validated here; a file that does not parse is refused with its
// name, never shown half-read. A live transcript has no task and no gold
// answer: the first reply's verdict is its style markers alone.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { RECOGNISED_BY, type LiveTranscriptView, type SessionTrainingView, type VerdictView } from '../contract';
import { judgeReply } from '../core/judge/criterion';
import { hintOf, turnSchema as sessionTurnSchema } from './sessionTranscript';
import type { JournalEvent } from '../core/journal/journalEvents';
import type { SessionDetail } from './runView';

type SessionEvent = Extract<JournalEvent, { type: 'session-completed' }>;

/** A live turn is a session's turn; its style verdict is computed here (it has no gold answer), not read. */
const turnSchema = sessionTurnSchema.omit({ verdict: true });

export const liveTranscriptFileSchema = z.looseObject({
  session: z.int().min(0),
  live: z.looseObject({ name: z.string(), recognisedBy: z.enum(RECOGNISED_BY) }),
  turns: z.array(turnSchema).min(1),
});
export type LiveTranscriptFile = z.infer<typeof liveTranscriptFileSchema>;

/** Whether a transcript file's JSON is live mode's (it names the conversation it came from). */
export function isLiveTranscript(raw: unknown): boolean {
  return typeof raw === 'object' && raw !== null && 'live' in raw;
}

/** Reads a live session's transcript file, refusing (with its name) one that does not parse. */
export async function readLiveTranscriptFile(runDir: string, event: SessionEvent): Promise<LiveTranscriptFile> {
  const file = path.join(runDir, event.transcript);
  try {
    return liveTranscriptFileSchema.parse(JSON.parse(await readFile(file, 'utf8')));
  } catch (error) {
    throw new Error(`session ${event.session}: cannot read its live transcript ${file}: ${(error as Error).message}`, { cause: error });
  }
}

/** The criterion's style verdict on a reply with no gold answer (the missing answer is not held against it). */
export function styleVerdict(reply: string): VerdictView {
  const v = judgeReply(reply, 0);
  const failures = v.failures.filter((f) => f !== 'no-gold-answer');
  return {
    accepted: failures.length === 0,
    reason: failures[0] ?? null,
    failures,
    markers: v.markers.map((m) => ({ kind: m.kind, start: m.start, end: m.end })),
    shownWork: v.shownWork.map((w) => ({ start: w.start, end: w.end })),
    goldAt: null,
  };
}

/** What the run view shows of a live session: its first message and reply, and how the reply was received. */
export function liveSessionDetail(file: LiveTranscriptFile): SessionDetail {
  const first = file.turns[0]!;
  return {
    question: first.user,
    gold: null,
    firstReply: first.reply,
    verdict: styleVerdict(first.reply),
    reaction: first.nextState,
    reward: first.judgment?.score ?? null,
    hint: hintOf(first.judgment ?? null),
    version: first.version,
    live: { name: file.live.name, recognisedBy: file.live.recognisedBy },
  };
}

export function liveTranscriptView(file: LiveTranscriptFile, training: SessionTrainingView): LiveTranscriptView {
  return {
    session: file.session,
    name: file.live.name,
    recognisedBy: file.live.recognisedBy,
    training,
    turns: file.turns.map((t) => ({
      turn: t.turn,
      user: t.user,
      reply: t.reply,
      version: t.version,
      finishReason: t.finishReason,
      completionTokens: t.completionTokens,
      nextState: t.nextState,
      verdict: null,
      reward: t.judgment?.score ?? null,
      hint: hintOf(t.judgment ?? null),
      training: t.training,
      skipped: t.skipped ?? null,
    })),
  };
}
