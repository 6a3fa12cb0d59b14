import { describe, expect, it } from 'vitest';
import type { JournalEvent } from '../journal/journalEvents';
import { foldGateState, IllegalTransitionError, planGateEvent } from './gateState';

const at = '2026-01-01T00:00:00.000Z';
const base = { version: 'base', sha256: 'b'.repeat(64) };
const v1 = { version: 'v1-aaaaaaaa', sha256: 'a'.repeat(64) };
const start: JournalEvent[] = [
  { seq: 0, at, type: 'run-started', runId: 'r', recipeFile: 'x', recipe: {}, baseVersion: base },
  { seq: 1, at, type: 'candidate-staged', id: 'c1', ...v1, blob: 'weights/blobs/a.safetensors', source: { kind: 'trainer', step: 1 } },
];

describe('gate state', () => {
  it('refuses to promote a candidate that was never confirmed, and changes nothing', () => {
    const state = foldGateState(3, start);
    expect(() => planGateEvent(state, { seq: 2, type: 'candidate-promoted', id: 'c1', pointer: v1, previous: base })).toThrow(IllegalTransitionError);
    expect(state.pointer).toEqual(base);
    expect(state.candidates.get('c1')?.state.kind).toBe('staged');
  });

  it('refuses to skip a probe round or to await confirmation before three passes', () => {
    const state = foldGateState(3, [...start, { seq: 2, at, type: 'candidate-verified', id: 'c1', evidence: {} }]);
    expect(() => planGateEvent(state, { seq: 3, type: 'candidate-probing', id: 'c1', round: 2, seed: 1 })).toThrow(IllegalTransitionError);
    planGateEvent(state, { seq: 3, type: 'candidate-probing', id: 'c1', round: 1, seed: 1 })();
    expect(() => planGateEvent(state, { seq: 4, type: 'candidate-awaiting-confirm', id: 'c1' })).toThrow(IllegalTransitionError);
  });

  it('refuses a rollback to a version that never served and a rejection that claims another pointer', () => {
    const state = foldGateState(3, start);
    expect(() => planGateEvent(state, { seq: 2, type: 'serving-rolled-back', pointer: v1, previous: base, by: 'person' })).toThrow(/never served/);
    expect(() => planGateEvent(state, { seq: 2, type: 'candidate-rejected', id: 'c1', reason: { code: 'person', detail: '' }, pointer: v1 })).toThrow(
      /not serving/,
    );
  });
});
