import { describe, expect, it } from 'vitest';
import type { ConversationMessage } from '../../core/protocols/engineProtocol';
import { affinityKey, nextStateOf, Sessionizer, userWords, type Placement, type ServedTurn } from './sessionizer';

let ids = 0;
function turn(messages: ConversationMessage[], reply: string, extra: Partial<ServedTurn> = {}): ServedTurn {
  ids += 1;
  return { id: `chatcmpl-${ids}`, sessionId: null, turnType: 'side', sessionDone: false, messages, response: { text: reply }, ...extra };
}
const user = (content: string): ConversationMessage => ({ role: 'user', content });
const assistant = (content: string): ConversationMessage => ({ role: 'assistant', content });
const turnOf = (p: Placement) => {
  if (p.kind !== 'turn') throw new Error(`expected a turn, got ${p.kind}`);
  return p;
};

describe('sessionizer', () => {
  it('groups by X-Session-Id, ignores side turns, gives each reply the next request’s new messages, and ends at X-Session-Done', () => {
    const s = new Sessionizer();
    const sys: ConversationMessage = { role: 'system', content: 'be brief' };
    const a = turn([sys, user('hi')], 'hello', { sessionId: 'abc', turnType: 'main' });
    const side = turn([user('summarise')], 'ok', { sessionId: 'abc', turnType: 'side' });
    const b = turn([sys, user('hi'), assistant('hello'), user('thanks, now 2+2?')], '4', { sessionId: 'abc', turnType: 'main', sessionDone: true });
    expect(turnOf(s.add(a))).toMatchObject({ session: 'header:abc', by: 'header', index: 0, done: false });
    expect(s.add(side)).toEqual({ kind: 'side', session: 'header:abc' });
    expect(turnOf(s.add(b))).toEqual({
      kind: 'turn',
      session: 'header:abc',
      by: 'header',
      index: 1,
      previous: { turnId: a.id, nextState: [user('thanks, now 2+2?')] },
      done: true,
    });
    // The same id after the session was done: a new session.
    const c = turn([user('again')], 'yes', { sessionId: 'abc', turnType: 'main' });
    const again = turnOf(s.add(c));
    expect(again).toMatchObject({ session: 'header:abc#2', index: 0 });
    expect(again.previous).toBeUndefined();
  });

  it('groups by OpenClaw’s affinity headers: session_id, x-session-affinity, or the session part of x-client-request-id', () => {
    expect(affinityKey({ affinity: { clientRequestId: 'sess-9:3' } })).toBe('sess-9');
    expect(affinityKey({ affinity: { sessionAffinity: 'aff', clientRequestId: 'x:1' } })).toBe('aff');
    expect(affinityKey({ affinity: { sessionId: 'sid', sessionAffinity: 'aff' } })).toBe('sid');
    expect(affinityKey({})).toBeUndefined();
    const s = new Sessionizer();
    const a = turn([user('q1')], 'r1', { affinity: { clientRequestId: 'sess-9:1' } });
    const b = turn([user('q1'), assistant('r1'), user('q2')], 'r2', { affinity: { clientRequestId: 'sess-9:2' } });
    expect(turnOf(s.add(a))).toMatchObject({ session: 'affinity:sess-9', by: 'affinity', index: 0 });
    expect(turnOf(s.add(b))).toMatchObject({ session: 'affinity:sess-9', index: 1, previous: { turnId: a.id, nextState: [user('q2')] } });
  });

  it('without headers, continues the conversation whose messages and reply the request starts with; tool results are a next state', () => {
    const s = new Sessionizer();
    const a = turn([user('weather?')], '', { response: { text: '', toolCalls: [{ id: 'call_1', name: 'weather', arguments: '{}' }] } });
    const followUp: ConversationMessage[] = [
      user('weather?'),
      // The client's own id for the call: only the name and arguments are compared.
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_other', name: 'weather', arguments: '{}' }] },
      { role: 'tool', content: 'sunny', toolCallId: 'call_other' },
    ];
    const b = turn(followUp, 'It is sunny.');
    expect(turnOf(s.add(a))).toMatchObject({ session: 'conversation-1', by: 'prefix', index: 0 });
    expect(turnOf(s.add(b))).toMatchObject({ session: 'conversation-1', index: 1, previous: { turnId: a.id, nextState: [followUp[2]] } });
  });

  it('keeps interleaved conversations apart', () => {
    const s = new Sessionizer();
    const a1 = turn([user('A?')], 'a1');
    const b1 = turn([user('B?')], 'b1');
    const a2 = turn([user('A?'), assistant('a1'), user('more A')], 'a2');
    const b2 = turn([user('B?'), assistant('b1'), user('more B')], 'b2');
    const a3 = turn([user('A?'), assistant('a1'), user('more A'), assistant('a2'), user('end A')], 'a3');
    const placed = [a1, b1, a2, b2, a3].map((t) => turnOf(s.add(t)));
    expect(placed.map((p) => p.session)).toEqual(['conversation-1', 'conversation-2', 'conversation-1', 'conversation-2', 'conversation-1']);
    expect(placed.map((p) => p.previous?.turnId)).toEqual([undefined, undefined, a1.id, b1.id, a2.id]);
  });

  it('makes a fork of a conversation a session of its own; the reply keeps the next state it got first', () => {
    const s = new Sessionizer();
    const a = turn([user('draft a poem')], 'roses');
    const b = turn([user('draft a poem'), assistant('roses'), user('shorter')], 'rose');
    const fork = turn([user('draft a poem'), assistant('roses'), user('about the sea instead')], 'waves');
    s.add(a);
    expect(turnOf(s.add(b)).previous?.turnId).toBe(a.id);
    const forked = turnOf(s.add(fork));
    expect(forked).toMatchObject({ session: 'conversation-2', index: 0, forkOf: a.id });
    expect(forked.previous).toBeUndefined();
  });

  it('opens a new session when a closed conversation is picked up again', () => {
    const s = new Sessionizer();
    const a = turn([user('x')], 'y');
    s.add(a);
    s.close('conversation-1');
    const placed = turnOf(s.add(turn([user('x'), assistant('y'), user('z')], 'w')));
    expect(placed).toMatchObject({ session: 'conversation-2', index: 0 });
    expect(placed.previous).toBeUndefined();
  });

  it('takes the messages after the last assistant turn as the next state when the client rewrote its history', () => {
    const previous = turn([user('long history'), assistant('old'), user('q')], 'r');
    expect(nextStateOf(previous, { messages: [user('summary'), assistant('r'), user('next')] })).toEqual([user('next')]);
  });

  it('recognises OpenClaw’s stock traffic as one session from its first request, the user’s words without OpenClaw’s envelope', () => {
    // As `openclaw agent --local --session-id sess-abc` sends it with sendSessionAffinityHeaders:
    // the same `<session>:0` in all three headers on every request, the first included; each user
    // message stamped with its time, the session's first followed by OpenClaw's runtime line.
    const affinity = { sessionId: 'sess-abc:0', sessionAffinity: 'sess-abc:0', clientRequestId: 'sess-abc:0' };
    const sys: ConversationMessage = { role: 'system', content: 'You are a personal assistant running inside OpenClaw.' };
    const first = user('[Sat 2026-12-05 09:55 UTC] What is 12 + 30?\n\nRuntime: agent=main | session=agent:main:explicit:sess-abc | sessionId=sess-abc');
    const complaint = user('[Sat 2026-12-05 09:56 UTC] This looks too AI-written. Write it as plain sentences, without bold or lists.');
    const thanks = user('[Sat 2026-12-05 09:57 GMT+1] Great, that looks right. Please append the answers to homework/1.txt.');
    const s = new Sessionizer();
    const a = turn([sys, first], '**42**', { affinity });
    const b = turn([sys, first, assistant('**42**'), complaint], '12 plus 30 is 42.', { affinity });
    const c = turn([sys, first, assistant('**42**'), complaint, assistant('12 plus 30 is 42.'), thanks], 'Done.', { affinity });
    const placed = [a, b, c].map((t) => turnOf(s.add(t)));
    expect(placed.map((p) => [p.session, p.by, p.index])).toEqual([
      ['affinity:sess-abc', 'affinity', 0],
      ['affinity:sess-abc', 'affinity', 1],
      ['affinity:sess-abc', 'affinity', 2],
    ]);
    expect(placed[1]?.previous).toEqual({
      turnId: a.id,
      nextState: [user('This looks too AI-written. Write it as plain sentences, without bold or lists.')],
    });
    expect(placed[2]?.previous).toEqual({ turnId: b.id, nextState: [user('Great, that looks right. Please append the answers to homework/1.txt.')] });
  });

  it('keeps OpenClaw’s compaction out of the conversation: its helper runs are side turns, and the session goes on past it', () => {
    // What OpenClaw sent when a session neared its context window (recorded from OpenClaw 2026.9.6):
    // a memory-flush run (the session's headers, a system prompt of its own), the summarizer (the
    // bare session id, its own system prompt), then the user's next turn on the compacted history,
    // its headers counting one compaction (`:1`).
    const sys: ConversationMessage = { role: 'system', content: 'You are a personal assistant running inside OpenClaw.\n## Tooling' };
    const at = (n: number) => ({ affinity: { sessionId: `sess-abc:${n}`, sessionAffinity: `sess-abc:${n}`, clientRequestId: `sess-abc:${n}` } });
    const s = new Sessionizer();
    const q1 = user('[Sat 2026-12-05 10:07 UTC] Tell me a story');
    const a = turn([sys, q1], 'Once upon a time…', at(0));
    const flush = turn(
      [
        { role: 'system', content: 'You are a personal assistant running inside OpenClaw.\n## Conversation Context\nPre-compaction memory flush turn.' },
        q1,
        assistant('Once upon a time…'),
        user('Pre-compaction memory flush. Store durable memories only in memory/2026-12-05.md.'),
      ],
      'NO_REPLY',
      at(0),
    );
    const summarize = turn(
      [{ role: 'system', content: 'You are a context summarization assistant.' }, user('<conversation>\n[User]: Tell me a story\n</conversation>')],
      '## Goal\nA story.',
      { affinity: { sessionId: 'sess-abc', sessionAffinity: 'sess-abc', clientRequestId: 'sess-abc' } },
    );
    const q2 = user('[Sat 2026-12-05 10:08 UTC] This looks too AI-written. Write it as plain sentences.');
    const b = turn(
      [sys, user('The conversation history before this point was compacted into the following summary: …'), assistant('Once upon a time…'), q2],
      'A story.',
      at(1),
    );
    expect(turnOf(s.add(a))).toMatchObject({ session: 'affinity:sess-abc', index: 0 });
    expect(s.add(flush)).toEqual({ kind: 'side', session: 'affinity:sess-abc' });
    expect(s.add(summarize)).toEqual({ kind: 'side', session: 'affinity:sess-abc' });
    // The first reply is judged by what the user said next, not by OpenClaw's flush instruction.
    expect(turnOf(s.add(b))).toMatchObject({
      session: 'affinity:sess-abc',
      index: 1,
      previous: { turnId: a.id, nextState: [user('This looks too AI-written. Write it as plain sentences.')] },
    });
  });

  it('without headers too, keeps OpenClaw’s helper runs out of the conversation and follows it past a compacted history', () => {
    // The same compaction as above with sendSessionAffinityHeaders off: nothing but the messages.
    const sys: ConversationMessage = { role: 'system', content: 'You are a personal assistant running inside OpenClaw.\n## Tooling' };
    const story = 'Once upon a time, a lighthouse keeper counted every ship that passed her rock.';
    const q1 = user('[Sat 2026-12-05 10:07 UTC] Tell me a story');
    const s = new Sessionizer();
    const a = turn([sys, q1], story);
    const flushSystem: ConversationMessage = {
      role: 'system',
      content: 'You are a personal assistant running inside OpenClaw.\nPre-compaction memory flush turn.',
    };
    const flushAsk = user('Pre-compaction memory flush. Store durable memories only in memory/2026-12-05.md.');
    const write = { id: 'call_9', name: 'write', arguments: '{"path":"memory/2026-12-05.md"}' };
    const flush = turn([flushSystem, q1, assistant(story), flushAsk], '', { response: { text: '', toolCalls: [write] } });
    // The flush's own tool call comes back with its result: still the helper's, not the user's.
    const flushResult = turn(
      [
        flushSystem,
        q1,
        assistant(story),
        flushAsk,
        { role: 'assistant', content: '', toolCalls: [write] },
        { role: 'tool', content: 'written', toolCallId: 'call_9' },
      ],
      'NO_REPLY',
    );
    const summarize = turn(
      [
        { role: 'system', content: 'You are a context summarization assistant.' },
        user(`<conversation>\n[User]: Tell me a story\n[Assistant]: ${story}\n</conversation>`),
      ],
      '## Goal\nA story.',
    );
    const q2 = user('[Sat 2026-12-05 10:08 UTC] This looks too AI-written. Write it as plain sentences.');
    const b = turn([sys, user('The conversation history before this point was compacted into the following summary: …'), assistant(story), q2], 'A story.');
    expect(turnOf(s.add(a))).toMatchObject({ session: 'conversation-1', by: 'prefix', index: 0 });
    for (const helper of [flush, flushResult, summarize]) expect(s.add(helper)).toEqual({ kind: 'side', session: 'conversation-1' });
    expect(turnOf(s.add(b))).toMatchObject({
      session: 'conversation-1',
      index: 1,
      previous: { turnId: a.id, nextState: [user('This looks too AI-written. Write it as plain sentences.')] },
    });
    // A short reply ("ok") links nothing: another conversation that quotes it, or ends on it, is its own.
    const t = new Sessionizer();
    t.add(turn([sys, user('ping')], 'ok'));
    expect(turnOf(t.add(turn([{ role: 'system', content: 'other' }, user('she said ok')], 'fine')))).toMatchObject({ session: 'conversation-2' });
    expect(turnOf(t.add(turn([sys, user('summary'), assistant('ok'), user('next')], 'x')))).toMatchObject({ session: 'conversation-3' });
  });

  it('leaves a user message that carries no OpenClaw envelope as it is', () => {
    expect(userWords('[draft] Runtime: agent=x')).toBe('[draft] Runtime: agent=x');
    expect(userWords('[Sat 2026-12-05 09:55 America/New_York] hi')).toBe('hi');
    expect(userWords('[Sat 2026-12-05 09:55:07 GMT-05:00] hi\n\nRuntime: agent=main | host=vm')).toBe('hi');
    expect(userWords('hi [Sat 2026-12-05 09:55 UTC] there')).toBe('hi [Sat 2026-12-05 09:55 UTC] there');
    // A tool's result is what the tool returned: never rewritten.
    const previous = turn([user('q')], '', { response: { text: '', toolCalls: [{ id: 'c1', name: 'tool_search', arguments: '{}' }] } });
    const result: ConversationMessage = { role: 'tool', content: '[Sat 2026-12-05 09:55 UTC] raw', toolCallId: 'c1' };
    expect(
      nextStateOf(previous, {
        messages: [user('q'), { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'tool_search', arguments: '{}' }] }, result],
      }),
    ).toEqual([result]);
  });
});
