import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ViewUpdates } from './viewUpdates';

// Batching under fake timers: no test here waits on real time.
describe('view update batching', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('changes within the batch window go out as one send', async () => {
    const sends: number[] = [];
    const updates = new ViewUpdates(
      50,
      async () => void sends.push(sends.length),
      () => undefined,
    );
    updates.mark();
    updates.mark();
    updates.mark();
    expect(sends).toEqual([]);
    await vi.advanceTimersByTimeAsync(50);
    expect(sends).toHaveLength(1);
  });

  it('flush sends at once; nothing pending sends nothing', async () => {
    let sent = 0;
    const updates = new ViewUpdates(
      50,
      async () => void (sent += 1),
      () => undefined,
    );
    await updates.flush();
    expect(sent).toBe(0);
    updates.mark();
    await updates.flush();
    expect(sent).toBe(1);
    await vi.advanceTimersByTimeAsync(100);
    expect(sent).toBe(1);
  });

  it('a change during a send schedules one more send after it, never two at once', async () => {
    let inFlight = 0;
    let most = 0;
    let sent = 0;
    let finish: (() => void) | undefined;
    const updates = new ViewUpdates(
      50,
      () =>
        new Promise<void>((resolve) => {
          inFlight += 1;
          most = Math.max(most, inFlight);
          finish = () => {
            inFlight -= 1;
            sent += 1;
            resolve();
          };
        }),
      () => undefined,
    );
    updates.mark();
    await vi.advanceTimersByTimeAsync(50);
    updates.mark(); // arrives while the first send is in flight
    finish?.();
    await vi.advanceTimersByTimeAsync(50);
    finish?.();
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toBe(2);
    expect(most).toBe(1);
  });

  it('a failed send is reported, and the next change still goes out', async () => {
    const errors: string[] = [];
    let calls = 0;
    const updates = new ViewUpdates(
      50,
      async () => {
        calls += 1;
        if (calls === 1) throw new Error('socket closed');
      },
      (error) => errors.push(error.message),
    );
    updates.mark();
    await updates.flush();
    updates.mark();
    await updates.flush();
    expect(errors).toEqual(['socket closed']);
    expect(calls).toBe(2);
  });
});
