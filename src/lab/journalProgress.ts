// The progress line of a run, from its journal: how long its sessions have
// run, how long a session takes (for the ETA), and which optimizer
// step the trainer is working on. The journal is enough for all three, so a
// run followed from another process shows the same line.
import type { RunProgressView } from '../contract';
import type { JournalEvent } from '../core/journal/journalEvents';
import type { Recipe } from '../core/recipe/recipeSchema';

/** Sessions the ETA averages over: the newest, so a run that sped up or slowed down is estimated as it runs now. */
const ETA_WINDOW = 10;

/** How long one session ran, and whether it was the first of its process stretch (it also waited for the engines). */
type SessionTime = { seconds: number; firstOfStretch: boolean };

/**
 * The run's session clock, from its journal: each session timed from when it
 * could start (its stretch's run-started or run-resumed, the session before
 * it, or the end of a pause) to its session-completed event. Pauses, the
 * time after the run ended (a decision on a finished run) and gate-only
 * openings are never session time. `since` is when the session in progress
 * started counting, null when no session can be running (paused, ended).
 */
export function sessionClock(events: readonly JournalEvent[]): { sessions: SessionTime[]; since: string | null } {
  const sessions: SessionTime[] = [];
  let since: string | null = null;
  let firstOfStretch = false;
  for (const e of events) {
    switch (e.type) {
      case 'run-started':
      case 'run-resumed':
        since = e.at;
        firstOfStretch = true;
        break;
      case 'run-continued':
        since = e.at;
        break;
      case 'run-paused':
      case 'run-completed':
      case 'run-failed':
        since = null;
        break;
      case 'session-completed':
        if (since !== null) {
          sessions.push({ seconds: Math.max(0, (Date.parse(e.at) - Date.parse(since)) / 1000), firstOfStretch });
          firstOfStretch = false;
          since = e.at;
        }
        break;
      default:
        break;
    }
  }
  return { sessions, since };
}

/** Seconds the run's sessions ran: neither pauses nor anything after the run ended count. */
export function sessionSeconds(events: readonly JournalEvent[]): number {
  return sessionClock(events).sessions.reduce((total, s) => total + s.seconds, 0);
}

/**
 * Mean seconds per session over the newest sessions of the latest process
 * stretch, pauses left out; the first session of a stretch (it also waited
 * for the engines to start) is left out once others are timed.
 */
export function secondsPerSession(events: readonly JournalEvent[]): number | null {
  const { sessions } = sessionClock(events);
  let lastStart = 0;
  sessions.forEach((s, i) => {
    if (s.firstOfStretch) lastStart = i;
  });
  const stretch = sessions.slice(lastStart);
  const timed = stretch.length > 1 ? stretch.slice(1) : [];
  const newest = timed.slice(-ETA_WINDOW).map((s) => s.seconds);
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

/**
 * The run's progress; the trainer's step only while the run's trainer runs
 * (`live`), the session clock only while its session loop runs
 * (`sessionsRun`: not while its engines start — a stretch a crash cut off
 * left no end in the journal, and the resume has not yet journaled its start).
 */
export function runProgress(events: readonly JournalEvent[], recipe: Recipe, live: boolean, sessionsRun = live): RunProgressView {
  return {
    activeSeconds: sessionSeconds(events),
    secondsPerSession: secondsPerSession(events),
    sessionSince: sessionsRun ? sessionClock(events).since : null,
    trainerStep: live ? trainerStepInFlight(events, recipe) : null,
  };
}
