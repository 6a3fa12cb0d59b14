import type { LabApi } from '../../../src/contract/api';
import { getLab } from '../api/labClient';

/** A transcript as the drawer has it: being read, read, or why it could not be. */
export type TranscriptState<T> = { status: 'loading' } | { status: 'loaded'; transcript: T } | { status: 'error'; message: string };

/** Which session's transcript is open, and the transcripts read so far (a run's or live mode's). */
export interface TranscriptCache<T> {
  /** The session whose transcript the drawer shows, in the run folder it belongs to; null: the drawer is closed. */
  open: { runDir: string; session: number } | null;
  /** Transcripts read so far, by run folder and session. */
  transcripts: Record<string, TranscriptState<T>>;
  show(runDir: string, session: number): Promise<void>;
  /** Forgets a session's transcript, so its next read shows what changed (an exclusion changes a live session's training). */
  forget(runDir: string, session: number): void;
  close(): void;
}

export const transcriptKey = (runDir: string, session: number): string => `${runDir}#${session}`;

type SetCache<T> = (update: Partial<TranscriptCache<T>> | ((state: TranscriptCache<T>) => Partial<TranscriptCache<T>>)) => void;

/** The transcript part of a store: `read` fetches one session's transcript from the lab (once; forget reads it again). */
export function transcriptCache<T>(set: SetCache<T>, get: () => TranscriptCache<T>, read: (lab: LabApi, session: number) => Promise<T>): TranscriptCache<T> {
  return {
    open: null,
    transcripts: {},
    async show(runDir, session) {
      set({ open: { runDir, session } });
      const key = transcriptKey(runDir, session);
      const lab = getLab();
      if (lab === null || get().transcripts[key]?.status === 'loaded') return;
      set((state) => ({ transcripts: { ...state.transcripts, [key]: { status: 'loading' } } }));
      try {
        const transcript = await read(lab, session);
        set((state) => ({ transcripts: { ...state.transcripts, [key]: { status: 'loaded', transcript } } }));
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        set((state) => ({ transcripts: { ...state.transcripts, [key]: { status: 'error', message } } }));
      }
    },
    forget(runDir, session) {
      set((state) => {
        const { [transcriptKey(runDir, session)]: _gone, ...rest } = state.transcripts;
        return { transcripts: rest };
      });
    },
    close: () => set({ open: null }),
  };
}
