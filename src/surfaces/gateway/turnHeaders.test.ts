import { describe, expect, it } from 'vitest';
import { parseTurnHeaders } from './turnHeaders';

describe('parseTurnHeaders', () => {
  it('names the session by X-Session-Id', () => {
    expect(parseTurnHeaders({ 'x-session-id': 'run-1', 'x-turn-type': 'main', 'x-session-done': 'true' })).toEqual({
      sessionId: 'run-1',
      turnType: 'main',
      sessionDone: true,
      affinity: {},
    });
  });

  it("records OpenClaw's affinity headers apart: they group turns, they are not OpenClaw-RL's session headers", () => {
    const openClaw = { session_id: 's1:0', 'x-session-affinity': 's1:0', 'x-client-request-id': 's1:0' };
    expect(parseTurnHeaders(openClaw)).toEqual({
      sessionId: null,
      turnType: 'side',
      sessionDone: false,
      affinity: { sessionId: 's1:0', sessionAffinity: 's1:0', clientRequestId: 's1:0' },
    });
  });

  it('leaves out an empty affinity header instead of refusing the request (it never decides serving)', () => {
    expect(parseTurnHeaders({ 'x-session-affinity': ' ' }).affinity).toEqual({});
  });

  it('refuses an empty X-Session-Id, naming it', () => {
    expect(() => parseTurnHeaders({ 'x-session-id': ' ' })).toThrow(/X-Session-Id/);
  });

  it('records no session when no header is sent', () => {
    expect(parseTurnHeaders({})).toEqual({ sessionId: null, turnType: 'side', sessionDone: false, affinity: {} });
  });
});
