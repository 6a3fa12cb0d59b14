/**
 * The phases of a run on the desktop, and the groups of them the lab and the
 * renderer ask about — defined once here, so a phase added later is placed in
 * every group at one spot.
 *
 * In time order of a run's life:
 * starting (engines loading) → running → stopping → stopped | completed | failed;
 * running → pausing (the session in progress finishes) → paused (no session
 * runs; serving, the trainer's step in flight and the gate go on) → running;
 * `viewing` is a run folder opened from disk (nothing runs); `gate-only` is
 * such a run opened with its gate and probe engine only, for a person's
 * decision (no sessions run).
 */
export const RUN_PHASES = ['starting', 'running', 'pausing', 'paused', 'stopping', 'stopped', 'completed', 'failed', 'viewing', 'gate-only'] as const;
export type RunPhase = (typeof RUN_PHASES)[number];

/** This lab holds the run's sessions: from the engines loading until its session loop has ended. */
export const LIVE_PHASES = ['starting', 'running', 'pausing', 'paused', 'stopping'] as const satisfies readonly RunPhase[];
/** The session loop runs (paused between two sessions included). */
export const SESSION_LOOP_PHASES = ['running', 'pausing', 'paused', 'stopping'] as const satisfies readonly RunPhase[];
/** A session may be in progress: the loop runs and is not parked at a pause. */
export const SESSION_PHASES = ['running', 'pausing', 'stopping'] as const satisfies readonly RunPhase[];
/** The engines are loading, or the session loop is winding down: a person's request must wait a moment. */
export const SETTLING_PHASES = ['starting', 'stopping'] as const satisfies readonly RunPhase[];
/** A pause was asked for (the session in progress finishing) or reached. */
export const PAUSE_PHASES = ['pausing', 'paused'] as const satisfies readonly RunPhase[];

const member =
  (group: readonly RunPhase[]) =>
  (phase: RunPhase): boolean =>
    group.includes(phase);

export const isLivePhase = member(LIVE_PHASES);
export const inSessionLoop = member(SESSION_LOOP_PHASES);
export const mayRunSession = member(SESSION_PHASES);
export const isPausePhase = member(PAUSE_PHASES);
export const isSettling = member(SETTLING_PHASES);
