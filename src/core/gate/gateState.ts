// The gate's state is a fold over the journal: every candidate's lifecycle
//   staged → verified → probing (round k of n) → awaiting-confirm → confirmed → promoted
//   or rejected(reason) / superseded
// and the serving pointer's history. The same reducer checks each new event
// before it is written, so an illegal transition never reaches the disk, and
// rebuilds the state on resume.
import type { JournalEvent, Rejection, CandidateSource } from '../journal/journalEvents';
import type { ProbeMetrics } from './probeMetrics';
import type { ServingPointer } from '../journal/servingPointer';
import type { Confirmer } from './candidateVocabulary';

export type CandidateState =
  | { kind: 'staged' }
  | { kind: 'verified' }
  | { kind: 'probing'; round: number; passedRounds: number }
  | { kind: 'awaiting-confirm' }
  | { kind: 'confirmed'; by: Confirmer }
  | { kind: 'promoted' }
  | { kind: 'rejected'; reason: Rejection }
  | { kind: 'superseded'; by: string };

export type ProbeRoundEvidence = {
  round: number;
  seed: number;
  passed: boolean;
  failing: string[];
  candidate: ProbeMetrics;
  serving: ProbeMetrics & { version: string };
  replies: string;
};

export type CandidateRecord = {
  id: string;
  version: string;
  sha256: string;
  blob: string;
  source: CandidateSource;
  state: CandidateState;
  verifyEvidence?: Record<string, unknown>;
  rounds: ProbeRoundEvidence[];
  stagedSeq: number;
};

export type GateState = {
  rounds: number;
  pointer: ServingPointer | undefined;
  /** Every version that has served, oldest first (rollback targets). */
  servedVersions: ServingPointer[];
  candidates: Map<string, CandidateRecord>;
};

export class IllegalTransitionError extends Error {
  constructor(id: string, from: string, event: string) {
    super(`candidate ${id}: '${event}' is not allowed in state '${from}'`);
    this.name = 'IllegalTransitionError';
  }
}

export const isTerminal = (s: CandidateState): boolean => s.kind === 'promoted' || s.kind === 'rejected' || s.kind === 'superseded';

/**
 * The waiting-candidate rule (README, "The release gate"): while any candidate
 * awaits a person, a trainer candidate past verify is held — no probe round
 * starts for it until the person has decided.
 */
export function isHeldForPerson(state: GateState, c: CandidateRecord): boolean {
  if (c.source.kind !== 'trainer' || (c.state.kind !== 'verified' && c.state.kind !== 'probing')) return false;
  for (const other of state.candidates.values()) if (other.id !== c.id && other.state.kind === 'awaiting-confirm') return true;
  return false;
}

export function emptyGateState(rounds: number): GateState {
  return { rounds, pointer: undefined, servedVersions: [], candidates: new Map() };
}

const samePointer = (a: ServingPointer | undefined, b: ServingPointer): boolean => a !== undefined && a.version === b.version && a.sha256 === b.sha256;

/** An event as the reducer needs it: the time stamp does not matter. */
export type GateEventInput = JournalEvent extends infer E ? (E extends JournalEvent ? Omit<E, 'at'> : never) : never;

/**
 * Checks one event against the state and returns the change it makes, not yet
 * applied: the gate checks an event before writing it to the journal and
 * applies it once it is on disk. Throws when the event is illegal.
 */
export function planGateEvent(state: GateState, event: GateEventInput): () => void {
  const candidate = (id: string): CandidateRecord => {
    const c = state.candidates.get(id);
    if (!c) throw new Error(`journal event ${event.seq} names unknown candidate ${id}`);
    return c;
  };
  const require = (c: CandidateRecord, ok: boolean): void => {
    if (!ok) throw new IllegalTransitionError(c.id, c.state.kind, event.type);
  };
  switch (event.type) {
    case 'run-started':
      return () => {
        state.pointer = event.baseVersion;
        state.servedVersions = [event.baseVersion];
      };
    case 'candidate-staged':
      if (state.candidates.has(event.id)) throw new Error(`candidate ${event.id} staged twice`);
      return () => {
        state.candidates.set(event.id, {
          id: event.id,
          version: event.version,
          sha256: event.sha256,
          blob: event.blob,
          source: event.source,
          state: { kind: 'staged' },
          rounds: [],
          stagedSeq: event.seq,
        });
      };
    case 'candidate-verified': {
      const c = candidate(event.id);
      require(c, c.state.kind === 'staged');
      return () => {
        c.state = { kind: 'verified' };
        c.verifyEvidence = event.evidence;
      };
    }
    case 'candidate-probing': {
      const c = candidate(event.id);
      const s = c.state;
      // Round 1 follows verification; round k follows k-1 passed rounds (a round
      // cut short by a crash starts again, with a fresh seed).
      require(c, event.round <= state.rounds && ((s.kind === 'verified' && event.round === 1) || (s.kind === 'probing' && s.passedRounds === event.round - 1)));
      return () => {
        c.state = { kind: 'probing', round: event.round, passedRounds: event.round - 1 };
      };
    }
    case 'probe-round': {
      const c = candidate(event.id);
      const s = c.state;
      require(c, s.kind === 'probing' && s.round === event.round && s.passedRounds === event.round - 1);
      return () => {
        c.rounds.push({
          round: event.round,
          seed: event.seed,
          passed: event.passed,
          failing: event.failing,
          candidate: event.candidate,
          serving: event.serving,
          replies: event.replies,
        });
        // A failed round leaves passedRounds behind; the only way on is rejection.
        if (event.passed) c.state = { kind: 'probing', round: event.round, passedRounds: event.round };
      };
    }
    case 'candidate-awaiting-confirm': {
      const c = candidate(event.id);
      require(c, c.state.kind === 'probing' && c.state.passedRounds === state.rounds);
      return () => {
        c.state = { kind: 'awaiting-confirm' };
      };
    }
    case 'candidate-confirmed': {
      const c = candidate(event.id);
      require(c, c.state.kind === 'awaiting-confirm');
      return () => {
        c.state = { kind: 'confirmed', by: event.by };
      };
    }
    case 'candidate-promoted': {
      const c = candidate(event.id);
      require(c, c.state.kind === 'confirmed');
      if (event.pointer.version !== c.version || event.pointer.sha256 !== c.sha256)
        throw new Error(`promotion of ${c.id} names ${event.pointer.version}, not the candidate's version`);
      if (!samePointer(state.pointer, event.previous)) throw new Error(`promotion of ${c.id}: previous pointer is stale`);
      return () => {
        c.state = { kind: 'promoted' };
        state.pointer = event.pointer;
        state.servedVersions.push(event.pointer);
      };
    }
    case 'candidate-rejected': {
      const c = candidate(event.id);
      require(c, !isTerminal(c.state));
      if (!samePointer(state.pointer, event.pointer)) throw new Error(`rejection of ${c.id} records a pointer that is not serving`);
      return () => {
        c.state = { kind: 'rejected', reason: event.reason };
      };
    }
    case 'candidate-superseded': {
      const c = candidate(event.id);
      require(c, c.state.kind === 'staged' || c.state.kind === 'verified' || c.state.kind === 'awaiting-confirm');
      candidate(event.by);
      return () => {
        c.state = { kind: 'superseded', by: event.by };
      };
    }
    case 'serving-rolled-back':
      if (!state.servedVersions.some((p) => samePointer(p, event.pointer))) throw new Error(`rollback to ${event.pointer.version}: that version never served`);
      if (!samePointer(state.pointer, event.previous)) throw new Error('rollback: previous pointer is stale');
      return () => {
        state.pointer = event.pointer;
      };
    case 'run-resumed':
    case 'run-paused':
    case 'run-continued':
    case 'session-completed':
    case 'session-excluded':
    case 'trainer-step':
    case 'trainer-step-refused':
    case 'run-completed':
    case 'run-failed':
      return () => undefined;
    default: {
      const exhaustive: never = event;
      throw new Error(`unknown event ${JSON.stringify(exhaustive)}`);
    }
  }
}

export function foldGateState(rounds: number, events: readonly JournalEvent[]): GateState {
  const state = emptyGateState(rounds);
  for (const e of events) planGateEvent(state, e)();
  return state;
}
