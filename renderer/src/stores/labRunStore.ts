import { create } from 'zustand';
import type { BadCandidateKind, ProbePair, RunPatch, RunView, ServingPointerView } from '../../../src/contract/labRuns';
import { getLab } from '../api/labClient';
import { applyRunPatches } from '../lib/runPatches';

export type ProbeRoundState =
  { status: 'loading' } | { status: 'loaded'; seed: number; servingVersion: string; pairs: ProbePair[] } | { status: 'error'; message: string };

/** The last decision a person made here, and what serving was before and after. */
export interface Decision {
  action: 'confirm' | 'reject' | 'rollback';
  subject: string;
  servingBefore: ServingPointerView;
  servingAfter: ServingPointerView;
}

/**
 * Requests in flight, by label ("start", "confirm c3", "rollback v2-…"): each
 * button shows its own and waits for it; every other control stays live (the
 * lab orders what it must — one request never freezes the page).
 */
export type Pending = Readonly<Record<string, true>>;

export const isPending = (pending: Pending, label: string): boolean => pending[label] === true;
/** Whether any request whose label starts with `prefix` is in flight ("rollback" → any rollback). */
export const isPendingAny = (pending: Pending, prefix: string): boolean =>
  Object.keys(pending).some((label) => label === prefix || label.startsWith(`${prefix} `));

interface LabRunState {
  /** The run on screen (live, or a folder opened from disk); null before one is started or opened. */
  run: RunView | null;
  pending: Pending;
  /** Why the last request was refused, in the lab's words. */
  problem: string | null;
  /** The request `problem` answers ("start", "open", "confirm c3", …), so each page shows it beside what was asked. */
  problemOf: string | null;
  lastDecision: Decision | null;
  /** The session whose first reply is shown; null follows the newest. */
  selectedSession: number | null;
  probeRounds: Record<string, ProbeRoundState>;
  /** A candidate the person asked to see (from the top bar's waiting list); its card is brought into view once shown. */
  focusCandidate: string | null;
  load(): Promise<void>;
  /** Shows a candidate awaiting the person: opens its run unless it is on screen, then brings its card into view. */
  review(runDir: string, candidate: string): Promise<void>;
  focused(): void;
  applyPatches(patches: readonly RunPatch[]): void;
  start(params: { recipe: string; seed?: number; confirm: 'manual' | 'auto'; sessions?: number }): Promise<boolean>;
  /** Starts live mode on a recipe: the gateway serves outside clients; their conversations become judged sessions. */
  startLive(params: { recipe: string; confirm: 'manual' | 'auto'; maxModelLen?: number }): Promise<boolean>;
  /** Excludes a journaled session from training (a session-excluded journal event); true once the lab wrote it. */
  exclude(session: number, reason: string): Promise<boolean>;
  /** Keeps a conversation still open out of training (excluded the moment it is journaled); true once the lab agreed. */
  excludeOpen(name: string, reason: string): Promise<boolean>;
  open(where: { runId: string } | { path: string }): Promise<boolean>;
  stop(): Promise<void>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  confirm(candidate: string): Promise<void>;
  reject(candidate: string, reason?: string): Promise<void>;
  inject(kind: BadCandidateKind): Promise<void>;
  rollback(version: string): Promise<void>;
  loadProbeRound(candidate: string, round: number): Promise<void>;
  selectSession(session: number | null): void;
  dismissProblem(): void;
}

export const probeRoundKey = (candidate: string, round: number): string => `${candidate}/${round}`;

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The live-run domain: the run on screen, kept current by the lab's
 * `labRuns.changed` patches (applied a frame's batch at a time, one `set`
 * per batch), and the person's requests to it. The store only asks: every
 * outcome shown comes back from the lab.
 */
export const useLabRunStore = create<LabRunState>()((set, get) => {
  let refetching = false;

  /**
   * Runs one request; its error becomes `problem`, never an exception in a
   * click handler. The same request twice at once is sent once (a double
   * click); different requests go out side by side.
   */
  async function request<T>(label: string, call: () => Promise<T>): Promise<T | undefined> {
    if (isPending(get().pending, label)) return undefined;
    set((state) => ({ pending: { ...state.pending, [label]: true }, problem: null, problemOf: null }));
    try {
      return await call();
    } catch (error) {
      set({ problem: messageOf(error), problemOf: label });
      return undefined;
    } finally {
      set((state) => {
        const { [label]: _done, ...rest } = state.pending;
        return { pending: rest };
      });
    }
  }

  /** A snapshot from a request replaces the view unless a newer patch already moved past it. */
  function adopt(run: RunView): void {
    const current = get().run;
    if (current !== null && current.header.runDir === run.header.runDir && current.header.update > run.header.update) return;
    const sameRun = current !== null && current.header.runDir === run.header.runDir;
    set(sameRun ? { run } : { run, lastDecision: null, selectedSession: null, probeRounds: {} });
  }

  return {
    run: null,
    pending: {},
    problem: null,
    problemOf: null,
    lastDecision: null,
    selectedSession: null,
    probeRounds: {},
    focusCandidate: null,

    async load() {
      const lab = getLab();
      if (lab === null) return;
      try {
        const { run } = await lab.labRuns.current();
        if (run === null) set({ run: null });
        else adopt(run);
      } catch (error) {
        set({ problem: messageOf(error), problemOf: 'load' });
      }
    },

    applyPatches(patches) {
      const outcome = applyRunPatches(get().run, patches);
      switch (outcome.kind) {
        case 'applied': {
          const previous = get().run;
          const replaced = previous === null || previous.header.runDir !== outcome.run.header.runDir;
          set(replaced ? { run: outcome.run, lastDecision: null, selectedSession: null, probeRounds: {} } : { run: outcome.run });
          return;
        }
        case 'refetch':
          if (refetching) return;
          refetching = true;
          void get()
            .load()
            .finally(() => {
              refetching = false;
            });
          return;
      }
    },

    async review(runDir, candidate) {
      const onScreen = get().run?.header.runDir === runDir;
      if (!onScreen && !(await get().open({ path: runDir }))) return;
      set({ focusCandidate: candidate });
    },

    focused: () => set({ focusCandidate: null }),

    async start(params) {
      const lab = getLab();
      if (lab === null) return false;
      const run = await request('start', () => lab.labRuns.start(params));
      if (run !== undefined) adopt(run);
      return run !== undefined;
    },

    async startLive(params) {
      const lab = getLab();
      if (lab === null) return false;
      const run = await request('start live', () => lab.labLive.start(params));
      if (run !== undefined) adopt(run);
      return run !== undefined;
    },

    async exclude(session, reason) {
      const lab = getLab();
      if (lab === null) return false;
      // The page shows the exclusion when the journal's event comes back in the run's updates.
      const outcome = await request(`exclude ${session}`, () => lab.labLive.exclude({ session, reason }));
      return outcome !== undefined;
    },

    async excludeOpen(name, reason) {
      const lab = getLab();
      if (lab === null) return false;
      // The open conversation's row shows it when the next update comes.
      const outcome = await request(`exclude ${name}`, () => lab.labLive.excludeOpen({ name, reason }));
      return outcome !== undefined;
    },

    async open(where) {
      const lab = getLab();
      if (lab === null) return false;
      const run = await request('open', () => lab.labRuns.open(where));
      if (run !== undefined) adopt(run);
      return run !== undefined;
    },

    async stop() {
      const lab = getLab();
      if (lab === null) return;
      const run = await request('stop', () => lab.labRuns.stop());
      if (run !== undefined) adopt(run);
    },

    async pause() {
      const lab = getLab();
      if (lab === null) return;
      const run = await request('pause', () => lab.labRuns.pause());
      if (run !== undefined) adopt(run);
    },

    async resume() {
      const lab = getLab();
      if (lab === null) return;
      const run = await request('resume', () => lab.labRuns.resume());
      if (run !== undefined) adopt(run);
    },

    async confirm(candidate) {
      const lab = getLab();
      if (lab === null) return;
      const outcome = await request(`confirm ${candidate}`, () => lab.labRuns.confirm({ candidate }));
      if (outcome !== undefined) {
        set({ lastDecision: { action: 'confirm', subject: candidate, servingBefore: outcome.servingBefore, servingAfter: outcome.servingAfter } });
      }
    },

    async reject(candidate, reason) {
      const lab = getLab();
      if (lab === null) return;
      const outcome = await request(`reject ${candidate}`, () => lab.labRuns.reject(reason === undefined ? { candidate } : { candidate, reason }));
      if (outcome !== undefined) {
        set({ lastDecision: { action: 'reject', subject: candidate, servingBefore: outcome.servingBefore, servingAfter: outcome.servingAfter } });
      }
    },

    async inject(kind) {
      const lab = getLab();
      if (lab === null) return;
      // The lab answers at once with the request (queued or building); it and its candidate arrive
      // with the run's updates, and the gate decides the candidate's fate. A refusal (a full queue) says why.
      const answer = await request(`inject ${kind}`, () => lab.labRuns.inject({ kind }));
      const current = get().run;
      if (answer !== undefined && current !== null && !current.header.injections.some((i) => i.id === answer.injection.id)) {
        set({ run: { ...current, header: { ...current.header, injections: [...current.header.injections, answer.injection] } } });
      }
    },

    async rollback(version) {
      const lab = getLab();
      if (lab === null) return;
      const outcome = await request(`rollback ${version}`, () => lab.labRuns.rollback({ version }));
      if (outcome !== undefined) {
        set({ lastDecision: { action: 'rollback', subject: version, servingBefore: outcome.servingBefore, servingAfter: outcome.servingAfter } });
      }
    },

    async loadProbeRound(candidate, round) {
      const lab = getLab();
      const key = probeRoundKey(candidate, round);
      if (lab === null || get().probeRounds[key]?.status === 'loaded') return;
      set((state) => ({ probeRounds: { ...state.probeRounds, [key]: { status: 'loading' } } }));
      try {
        const result = await lab.labRuns.probeReplies({ candidate, round });
        set((state) => ({
          probeRounds: { ...state.probeRounds, [key]: { status: 'loaded', seed: result.seed, servingVersion: result.servingVersion, pairs: result.pairs } },
        }));
      } catch (error) {
        set((state) => ({ probeRounds: { ...state.probeRounds, [key]: { status: 'error', message: messageOf(error) } } }));
      }
    },

    selectSession: (session) => set({ selectedSession: session }),
    dismissProblem: () => set({ problem: null, problemOf: null }),
  };
});
