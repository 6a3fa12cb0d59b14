// A run folder whose serving pointer moved after its last session: the run
// ran its sessions to the end, then a person confirmed a candidate and rolled
// serving back. The decisions are made by the real gate on the real journal
// (no-op adapters, as preparedRun.ts stages them, so the probe rounds pass).
// The learning curve must still draw both, though no session follows them.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BASE_VERSION } from '../../core/weights/adapterBlob';
import { LiveRun } from '../../run/liveRun';
import { writeNoOpAdapter } from './preparedRun';

export type LateDecisions = { promoted: string; rolledBackTo: string };

/**
 * Stages a no-op adapter through `runDir`'s gate, confirms it (a promotion)
 * and rolls serving back to the base (a rollback), all after the run's last
 * session. Throws when the gate did not let the candidate through.
 */
export async function decideAfterLastSession(runDir: string): Promise<LateDecisions> {
  const run = await LiveRun.open(runDir, { mode: 'gate' });
  try {
    const scratch = await mkdtemp(path.join(tmpdir(), 'gatelab-noop-'));
    const staged = await run.inject({ file: await writeNoOpAdapter(run, scratch, 11) });
    await run.gate.idle();
    const candidate = run.gate.candidate(staged.id);
    if (candidate.state.kind !== 'awaiting-confirm') throw new Error(`the no-op candidate ended ${JSON.stringify(candidate.state)}, not awaiting confirmation`);
    const promoted = await run.confirm(staged.id);
    if (promoted.state.kind !== 'promoted') throw new Error(`confirming ${staged.id} left it ${promoted.state.kind}`);
    const pointer = await run.rollback(BASE_VERSION);
    return { promoted: promoted.version, rolledBackTo: pointer.version };
  } finally {
    await run.close();
  }
}
