import { describe, expect, it } from 'vitest';
import { isSettling, RUN_PHASES, type RunPhase } from '../contract';
import { canPause, phaseAfterLettingGo, resumeStep, sessionInProgress, stopStep } from './runPhaseMachine';

// The desktop's run phases, request by request: what each does from each phase.
describe('the run phase machine', () => {
  it('resume continues a paused loop held here; from anywhere else it starts the sessions again', () => {
    const continuing = RUN_PHASES.filter((p) => resumeStep(p, 'sessions').kind === 'continue');
    expect(continuing).toEqual(['pausing', 'paused']);
    expect(resumeStep('paused', 'none')).toEqual({ kind: 'relaunch', next: 'starting' });
  });

  it('stop ends a running loop after its session, waits while settling, and otherwise lets go', () => {
    const kinds = Object.fromEntries(RUN_PHASES.map((p) => [p, stopStep(p, 'sessions').kind]));
    expect(kinds).toEqual({
      starting: 'wait',
      running: 'stop-after-session',
      pausing: 'stop-after-session',
      paused: 'stop-after-session',
      stopping: 'wait',
      stopped: 'let-go',
      completed: 'let-go',
      failed: 'let-go',
      viewing: 'let-go',
      'gate-only': 'let-go',
    } satisfies Record<RunPhase, string>);
    expect(stopStep('running', 'none').kind).toBe('let-go');
    expect(RUN_PHASES.filter(isSettling)).toEqual(['starting', 'stopping']);
  });

  it('only a running loop of this lab pauses', () => {
    expect(RUN_PHASES.filter((p) => canPause(p, 'sessions'))).toEqual(['running']);
    expect(canPause('running', 'gate')).toBe(false);
    expect(canPause('running', 'none')).toBe(false);
  });

  it('letting go turns what ran here into viewing; a settled end stays', () => {
    const after = Object.fromEntries(RUN_PHASES.map((p) => [p, phaseAfterLettingGo(p)]));
    expect(after).toEqual({
      starting: 'viewing',
      running: 'viewing',
      pausing: 'viewing',
      paused: 'viewing',
      stopping: 'stopping',
      stopped: 'stopped',
      completed: 'completed',
      failed: 'failed',
      viewing: 'viewing',
      'gate-only': 'viewing',
    } satisfies Record<RunPhase, RunPhase>);
  });

  it('the session in progress is the first not completed, while a session may run', () => {
    expect(sessionInProgress('running', new Set([0, 1, 3]), 5)).toBe(2);
    expect(sessionInProgress('stopping', new Set([0]), 2)).toBe(1);
    expect(sessionInProgress('paused', new Set([0]), 2)).toBeNull();
    expect(sessionInProgress('running', new Set([0, 1]), 2)).toBeNull();
  });
});
