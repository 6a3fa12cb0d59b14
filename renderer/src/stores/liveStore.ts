import { create } from 'zustand';
import type { LiveEndpointView, LiveTranscriptView } from '../../../src/contract/labLive';
import { getLab } from '../api/labClient';
import { transcriptCache, type TranscriptCache, type TranscriptState } from './transcriptCache';

export type LiveTranscriptState = TranscriptState<LiveTranscriptView>;

interface LiveState extends TranscriptCache<LiveTranscriptView> {
  /** Where a client connects to the live run on screen (with its token), once read. */
  endpoint: { key: string; view: LiveEndpointView } | null;
  endpointProblem: string | null;
  /** Reads the endpoint for `key` (the run folder and the base URL: each start of live mode has its own token). */
  loadEndpoint(key: string): Promise<void>;
}

export { transcriptKey as liveTranscriptKey } from './transcriptCache';

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The live-mode domain of the window: where a client connects (the bearer
 * token is read from the lab on request, kept only here, never logged), and
 * the journaled live sessions' transcripts.
 */
export const useLiveStore = create<LiveState>()((set, get) => ({
  ...transcriptCache<LiveTranscriptView>(set, get, (lab, session) => lab.labLive.transcript({ session })),
  endpoint: null,
  endpointProblem: null,
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
}));
