import { describe, expect, test } from 'vitest';
import type { AwaitingView } from '../../contract';
import { createLabEventBus } from '../../lab/eventBus';
import { notifyAwaitingCandidates, type AwaitingNotice } from './awaitingNotifier';

const candidate = (id: string) => ({ id, version: 'v3-aaaaaaaa', passedRounds: 3, probedAgainst: 'base', since: '2026-12-05T02:00:00.000Z' });
const run = (runId: string, ids: string[]) => ({ runId, runDir: `/runs/${runId}`, recipeName: 'e', candidates: ids.map(candidate) });
const view = (...runs: ReturnType<typeof run>[]): AwaitingView => ({ total: runs.reduce((n, r) => n + r.candidates.length, 0), runs });

describe('the OS notification for a waiting candidate', () => {
  test('once per candidate that starts waiting, in any run the lab follows', () => {
    const events = createLabEventBus();
    const shown: AwaitingNotice[] = [];
    const off = notifyAwaitingCandidates(events, (n) => shown.push(n));
    events.emit('labRuns.awaitingChanged', view(run('r1', ['c1']))); // waited already when the lab started: the top bar shows it
    events.emit('labRuns.awaitingChanged', view(run('r1', ['c1']), run('r2', ['c1']))); // another run's c1, not the one on screen
    events.emit('labRuns.awaitingChanged', view(run('r1', ['c1', 'c2']), run('r2', ['c1'])));
    events.emit('labRuns.awaitingChanged', view(run('r2', ['c1'])));
    events.log('info', 'not a list of waiting candidates');
    expect(shown.map((n) => [n.runDir, n.candidate, n.title])).toEqual([
      ['/runs/r2', 'c1', 'GateLab: c1 awaits your decision'],
      ['/runs/r1', 'c2', 'GateLab: c2 awaits your decision'],
    ]);
    expect(shown[0]?.body).toContain('passed 3 probe rounds against base in r2');
    // One that stopped waiting and waits again (its run folder read again) is announced again.
    events.emit('labRuns.awaitingChanged', view(run('r1', ['c2']), run('r2', ['c1'])));
    expect(shown).toHaveLength(3);
    off();
    events.emit('labRuns.awaitingChanged', view(run('r3', ['c1'])));
    expect(shown).toHaveLength(3);
  });
});
