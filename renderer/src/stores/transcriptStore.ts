import { create } from 'zustand';
import type { TranscriptView } from '../../../src/contract/labRuns';
import { transcriptCache, type TranscriptCache, type TranscriptState as CachedTranscript } from './transcriptCache';

export type TranscriptState = CachedTranscript<TranscriptView>;
export { transcriptKey } from './transcriptCache';

/** The transcript domain: which session's whole conversation is open, and those already fetched (a completed session's never changes). */
export const useTranscriptStore = create<TranscriptCache<TranscriptView>>()((set, get) =>
  transcriptCache(set, get, (lab, session) => lab.labRuns.transcript({ session })),
);
