// The run's journal: runs/<id>/journal.jsonl, typed events stamped with a
// sequence number and a time. Listeners hear each event once it is on disk,
// which is how the CLI progress line and the UI's event stream follow a run.
import path from 'node:path';
import { AppendOnlyJournal } from './appendOnlyJournal';
import { journalEventSchema, type JournalEvent, type NewJournalEvent } from './journalEvents';

export const journalFile = (runDir: string): string => path.join(runDir, 'journal.jsonl');

export type JournalListener = (event: JournalEvent) => void;

export class RunJournal {
  private readonly listeners = new Set<JournalListener>();
  private nextSeq: number;
  private broken: Error | undefined;

  private constructor(
    private readonly file: AppendOnlyJournal<JournalEvent>,
    readonly events: JournalEvent[],
    readonly droppedTornLine: boolean,
  ) {
    this.nextSeq = events.length;
  }

  static async open(runDir: string): Promise<RunJournal> {
    const { journal, events, droppedTornLine } = await AppendOnlyJournal.open(journalFile(runDir), journalEventSchema);
    return new RunJournal(journal, events, droppedTornLine);
  }

  /**
   * Stamps, writes and fsyncs the event, then tells the listeners. `plan`, when
   * given, checks the stamped event before anything is written (throwing
   * refuses it) and returns the in-memory change to apply once it is on disk.
   */
  async append(event: NewJournalEvent, plan?: (stamped: JournalEvent) => () => void): Promise<JournalEvent> {
    if (this.broken) throw this.broken;
    // A malformed event is the caller's bug: refuse it before it can break the journal.
    const stamped = journalEventSchema.parse({ ...event, seq: this.nextSeq, at: new Date().toISOString() });
    const commit = plan?.(stamped);
    // The sequence number is taken synchronously; the file queues appends in
    // call order, so seq order is file order.
    this.nextSeq++;
    try {
      await this.file.append(stamped);
    } catch (error) {
      // A journal that failed to write is not trusted again: the run stops
      // (fail closed) and a resume reads what is really on disk.
      this.broken = new Error(`journal write failed: ${(error as Error).message}`);
      throw this.broken;
    }
    this.events.push(stamped);
    commit?.();
    for (const listener of this.listeners) listener(stamped);
    return stamped;
  }

  onEvent(listener: JournalListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): Promise<void> {
    return this.file.close();
  }
}
