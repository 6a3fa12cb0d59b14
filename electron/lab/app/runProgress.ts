// The progress line of a run, from its journal: how long its processes have
// been alive, how long a session takes (for the ETA), and which optimizer
// step the trainer is working on. The journal is enough for all three, so a
// run followed from another process shows the same line.
import type { RunProgressView } from '../../contract';
import type { JournalEvent } from '../journal/journalEvents';
import type { Recipe } from '../recipe/recipeSchema';
import { activeSeconds } from '../run/runReport';

/** Sessions the ETA averages over: the newest, so a run that sped up or slowed down is estimated as it runs now. */
const ETA_WINDOW = 10;

/**
 * Mean seconds per session over the newest sessions of the latest process
 * stretch (from its run-started or run-resumed event): the first session of
 * a stretch is timed from that event, each later one from the session before.
 */
export function secondsPerSession(events: readonly JournalEvent[]): number | null {
  const durations: number[] = [];
  let previous: number | undefined;
  for (const e of events) {
    const t = Date.parse(e.at);
    if (e.type === 'run-started' || e.type === 'run-resumed') {
      durations.length = 0;
      previous = t;
    } else if (e.type === 'session-completed' && previous !== undefined) {
      durations.push((t - previous) / 1000);
      previous = t;
    }
  }
  // The first session of a stretch also waited for the engines to start: left out once others are timed.
  const timed = durations.length > 1 ? durations.slice(1) : [];
  const newest = timed.slice(-ETA_WINDOW);
  return newest.length === 0 ? null : newest.reduce((a, b) => a + b, 0) / newest.length;
}

/**
 * The step the trainer is working on: it steps as soon as a batch of judged
 * turns is complete, one step at a time, so a complete batch not yet consumed
 * by a journaled step (or refusal) is the one in flight.
 */
export function trainerStepInFlight(events: readonly JournalEvent[], recipe: Recipe): RunProgressView['trainerStep'] {
  const batch = recipe.trainer.batch_turns;
  let consumed = 0;
  let lastStep = 0;
  let judged = 0;
  let since: string | null = null;
  for (const e of events) {
    if (e.type === 'trainer-step' || e.type === 'trainer-step-refused') {
      consumed = e.samplesThrough;
      if (e.type === 'trainer-step') lastStep = e.step;
      since = judged - consumed >= batch ? e.at : null; // a batch was already waiting: the next step starts now
    } else if (e.type === 'session-completed') {
      judged += e.samples.count;
      if (since === null && judged - consumed >= batch) since = e.at;
    }
  }
  return since !== null && judged - consumed >= batch ? { step: lastStep + 1, turns: batch, since } : null;
}

/** The run's progress; the trainer's step only while the run's trainer runs (`live`). */
export function runProgress(events: readonly JournalEvent[], recipe: Recipe, live: boolean): RunProgressView {
  return {
    activeSeconds: activeSeconds(events),
    secondsPerSession: secondsPerSession(events),
    trainerStep: live ? trainerStepInFlight(events, recipe) : null,
  };
}
