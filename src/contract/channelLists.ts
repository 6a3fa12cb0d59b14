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
  'labRuns.recipes',
  'labRuns.start',
  'labRuns.current',
  'labRuns.list',
  'labRuns.awaiting',
  'labRuns.running',
  'labRuns.open',
  'labRuns.stop',
  'labRuns.pause',
  'labRuns.resume',
  'labRuns.confirm',
  'labRuns.reject',
  'labRuns.inject',
  'labRuns.rollback',
  'labRuns.probeReplies',
  'labRuns.transcript',
  'labRuns.openCurve',
  'labLive.start',
  'labLive.endpoint',
  'labLive.transcript',
  'labLive.exclude',
  'labLive.excludeOpen',
  'workers.list',
] as const;

/** The channels a renderer may subscribe to. */
export const LAB_EVENT_CHANNELS = [
  'lab.log',
  'runs.loaded',
  'labRuns.changed',
  'labRuns.awaitingChanged',
  'labRuns.runningChanged',
  'labRuns.reviewRequested',
  'workers.changed',
] as const;

export type LabMethodChannel = (typeof LAB_METHOD_CHANNELS)[number];
export type LabEventChannel = (typeof LAB_EVENT_CHANNELS)[number];

export function isLabMethodChannel(value: unknown): value is LabMethodChannel {
  return typeof value === 'string' && (LAB_METHOD_CHANNELS as readonly string[]).includes(value);
}

export function isLabEventChannel(value: unknown): value is LabEventChannel {
  return typeof value === 'string' && (LAB_EVENT_CHANNELS as readonly string[]).includes(value);
}
