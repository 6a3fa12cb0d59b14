import { describe, expect, it } from 'vitest';
import { parseTurnHeaders } from './turnHeaders';

describe('parseTurnHeaders', () => {
  it('names the session by X-Session-Id', () => {
    expect(parseTurnHeaders({ 'x-session-id': 'run-1', 'x-turn-type': 'main', 'x-session-done': 'true' })).toEqual({
      sessionId: 'run-1',
      turnType: 'main',
      sessionDone: true,
    });
  });

  it("names the session by OpenClaw's affinity header when X-Session-Id is absent", () => {
    const openClaw = { session_id: 's1:0', 'x-session-affinity': 's1:0', 'x-client-request-id': 's1:0' };
    expect(parseTurnHeaders(openClaw)).toEqual({ sessionId: 's1:0', turnType: 'side', sessionDone: false });
  });

  it('prefers X-Session-Id over the affinity header', () => {
    expect(parseTurnHeaders({ 'x-session-id': 'run-1', 'x-session-affinity': 's1:0' }).sessionId).toBe('run-1');
  });

  it('refuses an empty affinity header, naming it', () => {
    expect(() => parseTurnHeaders({ 'x-session-affinity': ' ' })).toThrow(/X-Session-Affinity/);
  });

  it('records no session when neither header is sent', () => {
    expect(parseTurnHeaders({}).sessionId).toBeNull();
  });
});
