/**
 * Where a run's time went, from its journal: the sessions' own parts (the
 * serving engine's replies, the student's reactions, the judge, building the
 * trainer's samples, waiting for the trainer's step before a session), the
 * trainer's steps, the gate's probe rounds and the swaps after a confirmation.
 *
 * The trainer and the gate work beside the sessions, so these are busy times
 * per phase and overlap; `wall` is the run's active time (pauses and the gaps
 * between a stop and a resume left out).
 */
import type { JournalEvent } from '../src/core/journal/journalEvents';
import { activeSeconds } from '../src/run/runReport';

export type PhaseBreakdown = {
  wall: number;
  sessions: { generation: number; student: number; judge: number; samples: number; wait_for_trainer: number };
  trainer_steps: number;
  probe_rounds: number;
  /** Confirmation → promotion: re-verify, pointer write and the serving engine's swap (draining in-flight requests). */
  swaps: number;
  /** Sessions whose journal event carries no timing (runs made before it was recorded). */
  sessions_untimed: number;
};

const seconds = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 1000;

export function phaseBreakdown(events: readonly JournalEvent[]): PhaseBreakdown {
  const out: PhaseBreakdown = {
    wall: activeSeconds(events),
    sessions: { generation: 0, student: 0, judge: 0, samples: 0, wait_for_trainer: 0 },
    trainer_steps: 0,
    probe_rounds: 0,
    swaps: 0,
    sessions_untimed: 0,
  };
  const probing = new Map<string, string>();
  const confirmed = new Map<string, string>();
  for (const e of events) {
    switch (e.type) {
      case 'session-completed':
        if (!e.timing) {
          out.sessions_untimed += 1;
          break;
        }
        out.sessions.generation += e.timing.generationSeconds;
        out.sessions.student += e.timing.studentSeconds;
        out.sessions.judge += e.timing.judgeSeconds;
        out.sessions.samples += e.timing.sampleSeconds;
        out.sessions.wait_for_trainer += e.timing.waitSeconds;
        break;
      case 'trainer-step':
        out.trainer_steps += e.stats.seconds;
        break;
      case 'candidate-probing':
        probing.set(`${e.id}/${e.round}`, e.at);
        break;
      case 'probe-round': {
        const began = probing.get(`${e.id}/${e.round}`);
        if (began !== undefined) out.probe_rounds += seconds(began, e.at);
        break;
      }
      case 'candidate-confirmed':
        confirmed.set(e.id, e.at);
        break;
      case 'candidate-promoted': {
        const at = confirmed.get(e.id);
        if (at !== undefined) out.swaps += seconds(at, e.at);
        break;
      }
      default:
        break;
    }
  }
  return out;
}

/** The breakdown's rows for a table: phase, seconds, share of the wall time. */
export function phaseRows(b: PhaseBreakdown): [string, number][] {
  return [
    ['sessions: generation (serving engine)', b.sessions.generation],
    ['sessions: student reactions', b.sessions.student],
    ['sessions: judge (PRM, hint)', b.sessions.judge],
    ['sessions: trainer samples', b.sessions.samples],
    ['sessions: waiting for the trainer', b.sessions.wait_for_trainer],
    ['trainer steps (beside the sessions)', b.trainer_steps],
    ['probe rounds (beside the sessions)', b.probe_rounds],
    ['swaps (confirm → promoted)', b.swaps],
    ['wall (active)', b.wall],
  ];
}
