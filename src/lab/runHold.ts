// Holding a run in this process, and letting it go. While this process holds
// a run's LiveRun, the run's journal events reach the view and the log as
// they are written, and its control endpoint is open: the run lock keeps
// every other process out of the run, so `gatelab confirm|reject|…` from
// another process come in through here, as they do to `gatelab run`.
// Letting go closes its processes; the view stays, read from disk.
import type { LiveMode } from '../run/live/liveMode';
import type { LiveRun } from '../run/liveRun';
import { startControlServer } from '../surfaces/control/controlServer';
import type { LabEventBus } from './eventBus';
import { refreshFromDisk, stopFollowing } from './journalFollower';
import type { OpenRun } from './openRun';
import { narration } from './runNarration';
import { phaseAfterLettingGo, type Holding } from './runPhaseMachine';

/** Holds the run here; resolves once its control endpoint is up (or could not start: then a warning says so). */
export function holdRun(c: OpenRun, run: LiveRun, mode: 'run' | 'gate' | 'live', liveMode: LiveMode | null, events: LabEventBus): Promise<unknown> {
  stopFollowing(c);
  c.events = run.journal.events;
  const unsubscribe = run.journal.onEvent((event) => {
    const line = narration(event);
    if (line !== null) events.log('info', line);
    c.updates.mark();
  });
  const control = startControlServer(run).catch((error: unknown) => {
    events.log('warn', `gatelab confirm|reject from another process cannot reach this run: ${(error as Error).message}`);
    return null;
  });
  c.held = { kind: 'live', run, mode, liveMode, unsubscribe, control };
  return control;
}

/** Lets go of the LiveRun (closing its processes); the view stays, read from disk. */
export async function releaseRun(c: OpenRun, events: LabEventBus): Promise<void> {
  if (c.held.kind === 'disk') return;
  const { run, liveMode, unsubscribe, control } = c.held;
  try {
    await (await control)?.close();
    // Live mode journals its open conversations first (their events still reach the view), then closes the run.
    if (liveMode !== null) await liveMode.close();
    else await run.close();
  } catch (error) {
    events.log('warn', `closing the run: ${(error as Error).message}`);
  } finally {
    unsubscribe();
  }
  c.held = { kind: 'disk', heldBy: null, poll: null };
  await refreshFromDisk(c);
  c.phase = phaseAfterLettingGo(c.phase);
}

/** How the lab holds the run, as the phase machine (runPhaseMachine.ts) reads it. */
export function holdingOf(c: OpenRun): Holding {
  if (c.held.kind === 'disk') return 'none';
  return c.held.mode === 'gate' ? 'gate' : 'sessions';
}
