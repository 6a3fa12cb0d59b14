import { z } from 'zod';
import type { EventTable } from './define';
import { AwaitingView, ReviewRequest, RunningView, RunPatch } from './labRuns';
import { RunSummary } from './runs';
import { WorkersView } from './workers';

export const LOG_LEVELS = ['info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const LogEntry = z.strictObject({
  at: z.iso.datetime(),
  level: z.enum(LOG_LEVELS),
  message: z.string(),
});
export type LogEntry = z.infer<typeof LogEntry>;

/** Events the core pushes to every connected renderer (IPC send / WebSocket). */
export const labEvents = {
  'lab.log': LogEntry,
  'runs.loaded': RunSummary,
  /** The run on screen changed: batched (one event per burst of journal events), merged by key. */
  'labRuns.changed': RunPatch,
  /** A candidate started or stopped waiting for a person in one of the runs the lab follows: the whole list. */
  'labRuns.awaitingChanged': AwaitingView,
  /** The run this lab runs started, stopped, changed phase or completed a session (on screen or in the background). */
  'labRuns.runningChanged': RunningView,
  /** The person clicked a waiting candidate's OS notification: show that candidate. */
  'labRuns.reviewRequested': ReviewRequest,
  /** The workers changed (a start, a crash, a restart, new log lines): the whole list, batched. */
  'workers.changed': WorkersView,
} as const satisfies EventTable;
