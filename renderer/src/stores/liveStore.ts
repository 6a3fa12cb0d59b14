import { create } from 'zustand';
import type { LiveEndpointView, LiveTranscriptView } from '../../../src/contract/labLive';
import { getLab } from '../api/labClient';

export type LiveTranscriptState = { status: 'loading' } | { status: 'loaded'; transcript: LiveTranscriptView } | { status: 'error'; message: string };

interface LiveState {
  /** Where a client connects to the live run on screen (with its token), once read. */
  endpoint: { key: string; view: LiveEndpointView } | null;
  endpointProblem: string | null;
  /** The live session whose transcript is open, in its run folder; null: closed. */
  open: { runDir: string; session: number } | null;
  /** Transcripts read so far, by run folder and session; re-read after an exclusion (its training changed). */
  transcripts: Record<string, LiveTranscriptState>;
  /** Reads the endpoint for `key` (the run folder and the base URL: each start of live mode has its own token). */
  loadEndpoint(key: string): Promise<void>;
  show(runDir: string, session: number): Promise<void>;
  /** Forgets a session's transcript, so its next read shows what changed (an exclusion). */
  forget(runDir: string, session: number): void;
  close(): void;
}

export const liveTranscriptKey = (runDir: string, session: number): string => `${runDir}#${session}`;

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The live-mode domain of the window: where a client connects (the bearer
 * token is read from the lab on request, kept only here, never logged), and
 * the journaled live sessions' transcripts.
 */
export const useLiveStore = create<LiveState>()((set, get) => ({
  endpoint: null,
  endpointProblem: null,
  open: null,
  transcripts: {},
  async loadEndpoint(key) {
    const lab = getLab();
    if (lab === null || get().endpoint?.key === key) return;
    try {
      const view = await lab.labLive.endpoint();
      set({ endpoint: { key, view }, endpointProblem: null });
    } catch (error) {
      set({ endpoint: null, endpointProblem: messageOf(error) });
    }
  },
  async show(runDir, session) {
    set({ open: { runDir, session } });
    const key = liveTranscriptKey(runDir, session);
    const lab = getLab();
    if (lab === null || get().transcripts[key]?.status === 'loaded') return;
    set((state) => ({ transcripts: { ...state.transcripts, [key]: { status: 'loading' } } }));
    try {
      const transcript = await lab.labLive.transcript({ session });
      set((state) => ({ transcripts: { ...state.transcripts, [key]: { status: 'loaded', transcript } } }));
    } catch (error) {
      set((state) => ({ transcripts: { ...state.transcripts, [key]: { status: 'error', message: messageOf(error) } } }));
    }
  },
  forget(runDir, session) {
    set((state) => {
      const { [liveTranscriptKey(runDir, session)]: _gone, ...rest } = state.transcripts;
      return { transcripts: rest };
    });
  },
  close: () => set({ open: null }),
}));
