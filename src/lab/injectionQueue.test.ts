import { describe, expect, test } from 'vitest';
import type { BadCandidateKind, InjectionView } from '../contract';
import { LabError, MAX_QUEUED_INJECTIONS } from '../contract';
import { InjectionQueue } from './injectionQueue';

const base = { version: 'base', sha256: 'b'.repeat(64) };

/** A builder double: each build waits until the test finishes it (no clocks, no races). */
function controlledBuilder() {
  const started: { kind: BadCandidateKind; finish: (id: string) => void; fail: (error: Error) => void }[] = [];
  const waiters: (() => void)[] = [];
  const build = (kind: BadCandidateKind) =>
    new Promise<string>((resolve, reject) => {
      started.push({ kind, finish: resolve, fail: reject });
      waiters.splice(0).forEach((w) => w());
    });
  /** Resolves once `n` builds have started. */
  const startedCount = async (n: number) => {
    while (started.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return { build, started, startedCount };
}

describe('injection requests', () => {
  test('answer at once; build one at a time in the order asked; each state is reported', async () => {
    const builder = controlledBuilder();
    const changes: string[] = [];
    const queue = new InjectionQueue(builder.build, (i: InjectionView) => changes.push(`${i.id}:${i.state}`));
    const first = queue.request('reward-inverted', base);
    const second = queue.request('nan-inf', base);
    expect(first).toMatchObject({ id: 'i1', kind: 'reward-inverted', servingBefore: base, candidate: null });
    expect(second).toMatchObject({ id: 'i2', state: 'queued', queuePosition: 0 });

    await builder.startedCount(1);
    expect(queue.list().map((i) => [i.id, i.state, i.queuePosition])).toEqual([
      ['i1', 'building', null],
      ['i2', 'queued', 0],
    ]);
    builder.started[0]!.finish('c7');
    await builder.startedCount(2);
    expect(builder.started.map((s) => s.kind)).toEqual(['reward-inverted', 'nan-inf']);
    builder.started[1]!.fail(new Error('the run closed'));
    await queue.idle();
    expect(queue.list()).toMatchObject([
      { id: 'i1', state: 'staged', candidate: 'c7', error: null },
      { id: 'i2', state: 'failed', candidate: null, error: 'the run closed' },
    ]);
    expect(changes).toEqual(['i1:queued', 'i1:building', 'i2:queued', 'i1:staged', 'i2:building', 'i2:failed']);
  });

  test(`a request beyond ${MAX_QUEUED_INJECTIONS} waiting is refused with the reason, and nothing is dropped`, async () => {
    const builder = controlledBuilder();
    const queue = new InjectionQueue(builder.build, () => undefined);
    queue.request('collapsed', base);
    await builder.startedCount(1);
    for (let i = 0; i < MAX_QUEUED_INJECTIONS; i++) queue.request('wrong-shape', base);
    let refused: unknown;
    try {
      queue.request('nan-inf', base);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(LabError);
    expect(refused).toMatchObject({ code: 'conflict', message: expect.stringContaining(`${MAX_QUEUED_INJECTIONS} injections are already waiting`) });
    expect(queue.list().map((i) => i.queuePosition)).toEqual([null, 0, 1, 2, 3, 4]);
    queue.cancelWaiting('the run left the screen');
    builder.started[0]!.finish('c1');
    await queue.idle();
    expect(queue.list().map((i) => i.state)).toEqual(['staged', 'failed', 'failed', 'failed', 'failed', 'failed']);
    expect(builder.started).toHaveLength(1);
  });
});
