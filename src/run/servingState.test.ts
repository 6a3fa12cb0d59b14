import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServingState } from './servingState';
import { EngineDouble, gate } from '../surfaces/gateway/testing/engineDouble';

function blob(content: string, step = 1): { version: string; sha256: string; path: string } {
  const sha256 = createHash('sha256').update(content).digest('hex');
  const path = join(mkdtempSync(join(tmpdir(), 'gatelab-ss-')), `${sha256}.safetensors`);
  writeFileSync(path, content);
  return { version: `v${step}-${sha256.slice(0, 8)}`, sha256, path };
}
const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 10));

describe('ServingState', () => {
  it('waits for every in-flight lease before asking the engine to swap', async () => {
    const engine = new EngineDouble();
    const state = new ServingState(engine, { version: 'base', sha256: null });
    const a = await state.acquire();
    const b = await state.acquire();
    const target = blob('one');
    const swapped = state.swapTo(target);
    await tick();
    expect(engine.adapterCalls).toHaveLength(0);
    a.release();
    a.release(); // releasing twice counts once
    await tick();
    expect(engine.adapterCalls).toHaveLength(0);
    expect(state.inFlight).toBe(1);
    b.release();
    await expect(swapped).resolves.toEqual({ version: target.version, sha256: target.sha256 });
    expect(engine.adapterCalls).toEqual([target]);
    expect(a.serving.version).toBe('base');
  });

  it('holds new leases while a swap is pending and gives them the new version', async () => {
    const engine = new EngineDouble();
    engine.holdAdapter = gate();
    const state = new ServingState(engine, { version: 'base', sha256: null });
    const target = blob('two');
    const swapped = state.swapTo(target);
    await tick();
    let leased = false;
    const waiting = state.acquire().then((lease) => {
      leased = true;
      return lease;
    });
    await tick();
    expect(leased).toBe(false);
    engine.holdAdapter.open();
    await swapped;
    expect((await waiting).serving.version).toBe(target.version);
  });

  it('gives a request that arrives right after swapTo (while the blob is hashed) the new version', async () => {
    const engine = new EngineDouble();
    const state = new ServingState(engine, { version: 'base', sha256: null });
    const target = blob('three');
    const swapped = state.swapTo(target);
    const lease = await state.acquire();
    expect(lease.serving.version).toBe(target.version);
    await swapped;
  });

  it('runs swaps in the order asked and releases waiters after a failed one', async () => {
    const engine = new EngineDouble();
    const state = new ServingState(engine, { version: 'base', sha256: null });
    const first = blob('first', 1);
    const second = blob('second', 2);
    const bad = { ...blob('bad', 3), sha256: '0'.repeat(64), version: 'v3-00000000' };
    const results = await Promise.allSettled([state.swapTo(first), state.swapTo(bad), state.swapTo(second)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(engine.adapterCalls).toEqual([first, second]);
    expect(state.current.version).toBe(second.version);
    await expect(state.swapTo(null)).resolves.toEqual({ version: 'base', sha256: null });
    const lease = await state.acquire();
    expect(lease.serving.version).toBe('base');
  });

  it('keeps the old version when the engine reports a different version than it was asked to load', async () => {
    const engine = new EngineDouble();
    engine.setAdapter = async () => 'v7-12345678';
    const state = new ServingState(engine, { version: 'base', sha256: null });
    await expect(state.swapTo(blob('x'))).rejects.toThrow(/reports version/);
    expect(state.current.version).toBe('base');
  });
});
