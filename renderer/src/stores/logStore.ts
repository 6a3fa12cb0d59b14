import { create } from 'zustand';
import type { LogEntry } from '../../../src/contract/events';

const MAX_ENTRIES = 200;

interface LogState {
  entries: LogEntry[];
  /** Appends a batch (events arrive batched per animation frame, one set per batch). */
  append(entries: readonly LogEntry[]): void;
}

/** The log domain: the lab's lab.log events, newest last. */
export const useLogStore = create<LogState>()((set) => ({
  entries: [],
  append: (entries) => set((state) => ({ entries: [...state.entries, ...entries].slice(-MAX_ENTRIES) })),
}));
