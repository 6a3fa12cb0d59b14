import { create } from 'zustand';
import type { TranscriptView } from '../../../src/contract/labRuns';
import { getLab } from '../api/labClient';

export type TranscriptState = { status: 'loading' } | { status: 'loaded'; transcript: TranscriptView } | { status: 'error'; message: string };

interface TranscriptStoreState {
  /** The session whose transcript the drawer shows, in the run folder it belongs to; null: the drawer is closed. */
  open: { runDir: string; session: number } | null;
  /** Transcripts read so far, by run folder and session (a completed session's transcript never changes). */
  transcripts: Record<string, TranscriptState>;
  show(runDir: string, session: number): Promise<void>;
  close(): void;
}

export const transcriptKey = (runDir: string, session: number): string => `${runDir}#${session}`;

/** The transcript domain: which session's whole conversation is open, and those already fetched. */
export const useTranscriptStore = create<TranscriptStoreState>()((set, get) => ({
  open: null,
  transcripts: {},
  async show(runDir, session) {
    set({ open: { runDir, session } });
    const key = transcriptKey(runDir, session);
    const lab = getLab();
    if (lab === null || get().transcripts[key]?.status === 'loaded') return;
    set((state) => ({ transcripts: { ...state.transcripts, [key]: { status: 'loading' } } }));
    try {
      const transcript = await lab.labRuns.transcript({ session });
      set((state) => ({ transcripts: { ...state.transcripts, [key]: { status: 'loaded', transcript } } }));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      set((state) => ({ transcripts: { ...state.transcripts, [key]: { status: 'error', message } } }));
    }
  },
  close: () => set({ open: null }),
}));
