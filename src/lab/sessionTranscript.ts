// A session's transcript file (runs/<id>/sessions/NNN.json, written by the
// run before the session's journal event) read back for the desktop: the
// whole conversation, each reply with the criterion's verdict at its own
// offsets and the judgment of the student's reaction. Validated here; a
// file that does not parse is refused with its name, never shown half-read.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { TRAINING_MODES, type HintView, type TranscriptView } from '../contract';
import type { JournalEvent } from '../core/journal/journalEvents';
import { storedVerdictSchema, verdictView } from './storedVerdict';

const judgmentSchema = z.looseObject({
  score: z.union([z.literal(-1), z.literal(0), z.literal(1)]),
  hint: z.string().nullable().optional(),
  hintAccepted: z.boolean(),
});

/** One turn as a transcript file holds it (a recipe session's or a live one's). */
export const turnSchema = z.looseObject({
  turn: z.int().min(0),
  user: z.string(),
  reply: z.string(),
  version: z.string(),
  finishReason: z.string(),
  completionTokens: z.int().min(0),
  nextState: z.string().nullable(),
  verdict: storedVerdictSchema.nullable(),
  judgment: judgmentSchema.nullable(),
  training: z.enum(TRAINING_MODES).nullable(),
  skipped: z.string().optional(),
});

export const transcriptFileSchema = z.looseObject({
  task: z.looseObject({ id: z.string(), question: z.string(), answer: z.number() }),
  turns: z.array(turnSchema).min(1),
  firstVerdict: storedVerdictSchema,
  endedBy: z.enum(['done', 'max-turns', 'context-full']).optional(),
});
export type TranscriptFile = z.infer<typeof transcriptFileSchema>;
export type TranscriptTurn = TranscriptFile['turns'][number];

type SessionEvent = Extract<JournalEvent, { type: 'session-completed' }>;

export async function readTranscriptFile(runDir: string, event: SessionEvent): Promise<TranscriptFile> {
  const file = path.join(runDir, event.transcript);
  try {
    return transcriptFileSchema.parse(JSON.parse(await readFile(file, 'utf8')));
  } catch (error) {
    throw new Error(`session ${event.session}: cannot read its transcript ${file}: ${(error as Error).message}`, { cause: error });
  }
}

/** The hint of a judged turn: the judge's text, and whether it was accepted; null when there was none. */
export function hintOf(judgment: TranscriptTurn['judgment']): HintView | null {
  if (judgment === null || judgment.hint === undefined || judgment.hint === null || judgment.hint === '') return null;
  return { text: judgment.hint, accepted: judgment.hintAccepted };
}

export function transcriptView(event: SessionEvent, file: TranscriptFile): TranscriptView {
  return {
    session: event.session,
    taskId: file.task.id,
    question: file.task.question,
    gold: file.task.answer,
    accepted: event.accepted,
    endedBy: file.endedBy ?? null,
    turns: file.turns.map((t) => ({
      turn: t.turn,
      user: t.user,
      reply: t.reply,
      version: t.version,
      finishReason: t.finishReason,
      completionTokens: t.completionTokens,
      nextState: t.nextState,
      // The first reply is always judged (the scored one), even when the budget left no reaction.
      verdict: t.verdict !== null ? verdictView(t.verdict) : t.turn === 0 ? verdictView(file.firstVerdict) : null,
      reward: t.judgment?.score ?? null,
      hint: hintOf(t.judgment),
      training: t.training,
      skipped: t.skipped ?? null,
    })),
  };
}
