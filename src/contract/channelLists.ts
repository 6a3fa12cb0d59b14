/**
 * The allow-lists of channels, kept free of schemas so the preload (which
 * runs sandboxed and should stay small and auditable) can import them alone.
 * Written out by hand, not derived from the method tables, so that exposing a
 * channel is a visible, reviewed change; channels.test-d.ts fails when a list
 * and its table disagree.
 */
export const LAB_METHOD_CHANNELS = [
  'app.info',
  'runs.listReferences',
  'runs.openReference',
  'runs.openFiles',
  'liveRuns.recipes',
  'liveRuns.start',
  'liveRuns.current',
  'liveRuns.list',
  'liveRuns.awaiting',
  'liveRuns.running',
  'liveRuns.open',
  'liveRuns.stop',
  'liveRuns.pause',
  'liveRuns.resume',
  'liveRuns.confirm',
  'liveRuns.reject',
  'liveRuns.inject',
  'liveRuns.rollback',
  'liveRuns.probeReplies',
  'liveRuns.transcript',
  'liveRuns.openCurve',
  'workers.list',
] as const;

/** The channels a renderer may subscribe to. */
export const LAB_EVENT_CHANNELS = ['lab.log', 'runs.loaded', 'liveRuns.changed', 'liveRuns.awaitingChanged', 'liveRuns.runningChanged', 'liveRuns.reviewRequested', 'workers.changed'] as const;

export type LabMethodChannel = (typeof LAB_METHOD_CHANNELS)[number];
export type LabEventChannel = (typeof LAB_EVENT_CHANNELS)[number];

export function isLabMethodChannel(value: unknown): value is LabMethodChannel {
  return typeof value === 'string' && (LAB_METHOD_CHANNELS as readonly string[]).includes(value);
}

export function isLabEventChannel(value: unknown): value is LabEventChannel {
  return typeof value === 'string' && (LAB_EVENT_CHANNELS as readonly string[]).includes(value);
}
