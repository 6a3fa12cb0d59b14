// What each session's judged turns came to, from the journal alone: how many
// were judged, the samples it gave, the trainer steps that used them (the
// same rule `gatelab exclude` names them by), and a person's exclusion. The
// desktop shows it beside each session, so a person sees what a step learned
// from and what an exclusion can no longer undo.
import type { SessionTrainingView } from '../contract';
import type { JournalEvent } from '../core/journal/journalEvents';
import { versionsTrainedOn } from '../run/live/sessionExclusion';

type SessionCompleted = Extract<JournalEvent, { type: 'session-completed' }>;

/** Each completed session's training, by session number. */
export function sessionTrainings(events: readonly JournalEvent[]): Map<number, SessionTrainingView> {
  const stepOfVersion = new Map(events.flatMap((e) => (e.type === 'trainer-step' ? [[e.candidate.version, e.step] as const] : [])));
  const exclusions = new Map(events.flatMap((e) => (e.type === 'session-excluded' ? [[e.session, e] as const] : [])));
  const out = new Map<number, SessionTrainingView>();
  for (const e of events) {
    if (e.type !== 'session-completed') continue;
    const excluded = exclusions.get(e.session);
    out.set(e.session, {
      judgedTurns: curveCount(e, 'judged_turns'),
      samples: e.samples.count,
      // No judged turn, no mean (live mode writes 0 then).
      prmMean: curveCount(e, 'judged_turns') === 0 ? null : curveValue(e, 'prm_mean'),
      trainedIn: versionsTrainedOn(events, e.session).flatMap((version) => {
        const step = stepOfVersion.get(version);
        return step === undefined ? [] : [{ step, version }];
      }),
      excluded: excluded === undefined ? null : { at: excluded.at, reason: excluded.reason, trainedIn: excluded.trainedIn },
    });
  }
  return out;
}

function curveValue(e: SessionCompleted, column: string): number | null {
  const value = e.curve[column];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function curveCount(e: SessionCompleted, column: string): number | null {
  const value = curveValue(e, column);
  return value !== null && Number.isInteger(value) && value >= 0 ? value : null;
}
