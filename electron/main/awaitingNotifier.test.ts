import { describe, expect, test } from 'vitest';
import type { CandidateView, RunPatch } from '../contract';
import { createLabEventBus } from '../lab/app/eventBus';
import { notifyAwaitingCandidates, type AwaitingNotice } from './awaitingNotifier';

const header = { runId: 'r1', runDir: '/runs/r1' } as RunPatch['header'];
const candidate = (id: string, state: CandidateView['state']) => ({ id, version: 'v3-aaaaaaaa', state, passedRounds: 3, roundsRequired: 3 }) as CandidateView;
const patch = (candidates: CandidateView[], reset = false): RunPatch => ({ reset, header, sessions: [], trainerSteps: [], refusedSteps: [], candidates, servingHistory: null });

describe('the OS notification for a waiting candidate', () => {
  test('once per candidate that starts waiting while the run is watched', () => {
    const events = createLabEventBus();
    const shown: AwaitingNotice[] = [];
    const off = notifyAwaitingCandidates(events, (n) => shown.push(n));
    events.emit('liveRuns.changed', patch([candidate('c1', 'awaiting-confirm')], true)); // opened with c1 waiting: its page shows it
    events.emit('liveRuns.changed', patch([candidate('c2', 'probing')]));
    events.emit('liveRuns.changed', patch([candidate('c2', 'awaiting-confirm')]));
    events.emit('liveRuns.changed', patch([candidate('c2', 'awaiting-confirm'), candidate('c1', 'awaiting-confirm')]));
    events.log('info', 'not a run update');
    expect(shown.map((n) => [n.candidate, n.title])).toEqual([['c2', 'GateLab: c2 awaits your decision']]);
    expect(shown[0]?.body).toContain('passed 3 of 3 probe rounds in r1');
    off();
    events.emit('liveRuns.changed', patch([candidate('c3', 'awaiting-confirm')]));
    expect(shown).toHaveLength(1);
  });
});
