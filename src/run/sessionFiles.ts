// A completed session's files in the run folder: its transcript and its
// judged turns (the trainer's samples), written before the session-completed
// event that names them (with the samples' sha256), and read back — each
// checked against that hash — when a run resumes and its trainer is fed again.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { sha256Hex } from '../core/gate/verifyCandidate';
import { writeFileAtomic } from '../core/journal/atomicFile';
import type { JournalEvent } from '../core/journal/journalEvents';
import type { RunJournal } from '../core/journal/runJournal';
import { trainSampleSchema, type TrainSample } from '../core/protocols/trainSample';
import { runPaths } from './runFolder';
import type { SessionResult } from './runSession';

/** A session's samples file: each judged turn, the version that produced its reply, and the train sample. */
const judgedSamplesSchema = z.array(z.object({ version: z.string(), turn: z.int(), sample: trainSampleSchema }));

export type SessionCompleted = Extract<JournalEvent, { type: 'session-completed' }>;

/** The journal's completed sessions, in session order. */
export function completedSessionEvents(events: readonly JournalEvent[]): SessionCompleted[] {
  return events.filter((e): e is SessionCompleted => e.type === 'session-completed').sort((a, b) => a.session - b.session);
}

/** Writes the session's transcript and samples, then journals it as completed. */
export async function recordSession(runDir: string, journal: RunJournal, result: SessionResult, waitSeconds: number): Promise<void> {
  const paths = runPaths(runDir);
  const transcript = paths.transcript(result.session);
  const samplesFile = paths.samples(result.session);
  const samplesText = JSON.stringify(result.samples);
  await writeFileAtomic(path.join(runDir, transcript), JSON.stringify(result, (k, v: unknown) => (k === 'samples' ? undefined : v), 1) + '\n');
  await writeFileAtomic(path.join(runDir, samplesFile), samplesText);
  await journal.append({
    type: 'session-completed',
    session: result.session,
    taskId: result.task.id,
    accepted: result.firstVerdict.accepted,
    turns: result.turns.length,
    versions: result.versions,
    transcript,
    samples: { file: samplesFile, sha256: sha256Hex(Buffer.from(samplesText, 'utf8')), count: result.samples.length },
    curve: { ...result.observation },
    timing: { waitSeconds, ...result.timing },
  });
}

/** The judged turns of every completed session, in order, each file checked against its journaled hash. */
export async function completedSamples(runDir: string, events: readonly JournalEvent[]): Promise<TrainSample[]> {
  const out: TrainSample[] = [];
  for (const e of completedSessionEvents(events)) {
    const bytes = await readFile(path.join(runDir, e.samples.file));
    if (sha256Hex(bytes) !== e.samples.sha256) throw new Error(`${e.samples.file} does not match its journaled sha256`);
    const judged = judgedSamplesSchema.safeParse(JSON.parse(bytes.toString('utf8')));
    if (!judged.success) {
      const issue = judged.error.issues[0];
      // A run made before the samples carried messages (they held the embedded tokenizer's ids) cannot train again.
      throw new Error(
        `${e.samples.file} holds no train samples this version reads (${issue?.path.join('.')}: ${issue?.message}); the run's training cannot resume`,
      );
    }
    out.push(...judged.data.map((j) => j.sample));
  }
  return out;
}
