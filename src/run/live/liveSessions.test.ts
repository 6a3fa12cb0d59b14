import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTurnJudge } from '../../core/judge/createTurnJudge';
import type { JournalEvent } from '../../core/journal/journalEvents';
import { RunJournal } from '../../core/journal/runJournal';
import type { ConversationMessage, ToolUse } from '../../core/protocols/engineProtocol';
import type { TrainSample } from '../../core/protocols/trainSample';
import type { TurnRecord } from '../turnLog';
import type { TurnJudgeInput } from '../../core/judge/turnJudge';
import { LiveSessions, nextStateText, replyText, untrainableReason } from './liveSessions';

const tools: ToolUse['tools'] = [{ name: 'read', description: 'read a file', parameters: { type: 'object', properties: {} } }] as ToolUse['tools'];
const use = (choice: ToolUse['choice']): ToolUse => ({ tools, choice, parallelToolCalls: null });
const plain = [{ role: 'user' as const, content: 'hi' }];

describe('live turns', () => {
  it('never trains a forced tool call (its log-probs are not the policy’s own) or a conversation with tool turns', () => {
    expect(untrainableReason({ messages: plain })).toBeUndefined();
    expect(untrainableReason({ messages: plain, toolUse: use('auto') })).toBeUndefined();
    expect(untrainableReason({ messages: plain, toolUse: use('none') })).toBeUndefined();
    expect(untrainableReason({ messages: plain, toolUse: use('required') })).toMatch(/forced tool call/);
    expect(untrainableReason({ messages: plain, toolUse: use({ name: 'read' }) })).toMatch(/forced tool call/);
    expect(untrainableReason({ messages: [...plain, { role: 'tool', content: 'x', toolCallId: 'c1' }] })).toMatch(/tool turns/);
  });

  it('reads a next state as the user’s words, a tool result marked as one', () => {
    expect(
      nextStateText([
        { role: 'tool', content: '72°F', toolCallId: 'c1' },
        { role: 'user', content: 'thanks' },
      ]),
    ).toBe('[tool result] 72°F\n\nthanks');
    expect(nextStateText([])).toBe('');
  });

  it('gives the judge a reply with its tool calls marked as such, a bare call included', () => {
    const call = { id: 'call_1', name: 'read', arguments: '{"path":"notes.txt"}' };
    expect(replyText({ text: '', toolCalls: [call] })).toBe('[tool call] read({"path":"notes.txt"})');
    expect(replyText({ text: 'Let me look.', toolCalls: [call] })).toBe('Let me look.\n\n[tool call] read({"path":"notes.txt"})');
    expect(replyText({ text: 'It is 5.' })).toBe('It is 5.');
  });
});

// The rule judge reads the scripted student's words: a complaint is −1 with its hindsight as the hint, a save request +1.
const COMPLAINT = 'This looks too AI-written. Write plain sentences without bold.';
const SAVE = 'Great, that looks right. Please append the answers to homework/1.txt.';

let ids = 0;
function served(messages: ConversationMessage[], text: string, extra: Partial<TurnRecord> = {}): TurnRecord {
  ids += 1;
  return {
    id: `chatcmpl-${ids}`,
    sessionId: null,
    turnType: 'side',
    sessionDone: false,
    model: 'gatelab-policy',
    messages,
    sampling: { temperature: 0.6, topP: 0.95, topK: 20, maxTokens: 16 },
    seed: 1,
    stream: false,
    response: {
      text,
      tokenIds: [5, 6],
      logprobs: [-0.5, -0.25],
      topIds: [[5], [6]],
      topLogprobs: [[-0.5], [-0.25]],
      finishReason: 'stop',
      promptTokens: 10,
      completionTokens: 2,
    },
    version: 'base',
    sha256: null,
    startedAt: '2026-01-01T00:00:00.000Z',
    timings: { queueMs: 0, engineMs: 0, firstTokenMs: null, promptMs: 0, decodeMs: 0, totalMs: 0 },
    ...extra,
  };
}

describe('live sessions', () => {
  let runDir: string;
  afterEach(async () => {
    await rm(runDir, { recursive: true, force: true });
  });

  async function open(now: () => number, onChange?: () => void) {
    runDir = await mkdtemp(path.join(tmpdir(), 'gatelab-live-sessions-'));
    const journal = await RunJournal.open(runDir);
    await journal.append({ type: 'run-started', runId: 'r', recipeFile: 'x', recipe: {}, baseVersion: { version: 'base', sha256: 'a'.repeat(64) } });
    const fed: TrainSample[][] = [];
    const rule = createTurnJudge({ prm: { kind: 'rule' }, hint: { kind: 'rule', min_chars: 10 } });
    const asked: TurnJudgeInput[] = [];
    const live = new LiveSessions({
      runDir,
      runId: 'r',
      journal,
      // The rule judge, with what it was asked kept.
      judge: {
        judgeTurn: (input) => {
          asked.push(input);
          return rule.judgeTurn(input);
        },
      },
      sampling: { countPromptTokens: async (messages) => messages.length * 10, maxPositions: 512 },
      feed: { add: (samples) => void fed.push([...samples]) },
      now,
      ...(onChange ? { onChange } : {}),
      onFatal: (error) => {
        throw error;
      },
    });
    return { journal, live, fed, asked };
  }

  it('judges each reply by the next request, trains the judged ones, and journals the session at X-Session-Done without training its last reply', async () => {
    const { journal, live, fed } = await open(() => 0);
    const h = { sessionId: 'abc', turnType: 'main' as const };
    const q: ConversationMessage = { role: 'user', content: 'What is 2 + 3?' };
    live.served(served([q], 'It is **5**.', h));
    live.served(served([q, { role: 'assistant', content: 'It is **5**.' }, { role: 'user', content: COMPLAINT }], 'It is 5.', h));
    const third = [
      q,
      { role: 'assistant' as const, content: 'It is **5**.' },
      { role: 'user' as const, content: COMPLAINT },
      { role: 'assistant' as const, content: 'It is 5.' },
      { role: 'user' as const, content: SAVE },
    ];
    live.served(served(third, 'Saved.', { ...h, sessionDone: true }));
    await live.idle();
    const done = journal.events.filter((e): e is Extract<JournalEvent, { type: 'session-completed' }> => e.type === 'session-completed');
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({ session: 0, taskId: 'live:header:abc', turns: 3, accepted: false, samples: { count: 2 } });
    expect(fed).toHaveLength(1);
    expect(fed[0]!.map((s) => [s.sessionId, s.turn, s.reward, s.hint ?? null])).toEqual([
      ['r/session-0', 0, -1, 'Write plain sentences without bold.'],
      ['r/session-0', 1, 1, null],
    ]);
    const transcript = JSON.parse(await readFile(path.join(runDir, done[0]!.transcript), 'utf8')) as {
      turns: { skipped?: string; nextState: string | null }[];
    };
    expect(transcript.turns.map((t) => t.nextState)).toEqual([COMPLAINT, SAVE, null]);
    expect(transcript.turns[2]?.skipped).toMatch(/no next state/);
  });

  it('judges a tool call by the tool’s result, sees the call, and keeps the call in the transcript', async () => {
    const { journal, live, asked } = await open(() => 0);
    const h = { affinity: { sessionId: 'claw:0' } };
    const q: ConversationMessage = { role: 'user', content: 'What does notes.txt say?' };
    const call = { id: 'call_7', name: 'read', arguments: '{"path":"notes.txt"}' };
    const called = served([q], '', { ...h, toolUse: use('auto') });
    live.served({ ...called, response: { ...called.response, toolCalls: [call] } });
    const result: ConversationMessage = { role: 'tool', content: 'The tide comes in at nine.', toolCallId: 'call_7' };
    live.served(
      served([q, { role: 'assistant', content: '', toolCalls: [call] }, result], 'It says the tide comes in at nine.', { ...h, toolUse: use('auto') }),
    );
    await live.closeAll();
    expect(asked).toEqual([{ assistantOutput: '[tool call] read({"path":"notes.txt"})', nextState: '[tool result] The tide comes in at nine.' }]);
    const done = journal.events.find((e) => e.type === 'session-completed');
    const transcript = JSON.parse(await readFile(path.join(runDir, (done as { transcript: string }).transcript), 'utf8')) as {
      turns: { reply: string; toolCalls?: unknown; nextState: string | null; judgment: { score: number } | null; user: string }[];
    };
    expect(transcript.turns[0]).toMatchObject({ reply: '', toolCalls: [call], nextState: '[tool result] The tide comes in at nine.', judgment: { score: 0 } });
    expect(transcript.turns[1]).toMatchObject({ user: '[tool result] The tide comes in at nine.', nextState: null });
    expect(transcript.turns[1]).not.toHaveProperty('toolCalls');
    await journal.close();
  });

  it('judges a forced tool call but never trains it, and journals a quiet session after the idle time', async () => {
    let clock = 0;
    const { journal, live, fed } = await open(() => clock);
    const q: ConversationMessage = { role: 'user', content: 'hi' };
    const forced: ToolUse = { tools, choice: 'required', parallelToolCalls: null };
    live.served(served([q], 'hello', { toolUse: forced }));
    live.served(served([q, { role: 'assistant', content: 'hello' }, { role: 'user', content: COMPLAINT }], 'hi.'));
    clock = 1000;
    live.closeIdle(2000);
    await live.idle();
    expect(journal.events.some((e) => e.type === 'session-completed')).toBe(false);
    clock = 2500;
    live.closeIdle(2000);
    await live.idle();
    const done = journal.events.find((e) => e.type === 'session-completed');
    expect(done).toMatchObject({ taskId: 'live:conversation-1', turns: 2, samples: { count: 0 } });
    expect(fed).toEqual([[]]);
    const transcript = JSON.parse(await readFile(path.join(runDir, (done as { transcript: string }).transcript), 'utf8')) as {
      turns: { skipped?: string; judgment: { score: number } | null }[];
    };
    expect(transcript.turns[0]).toMatchObject({ judgment: { score: -1 }, skipped: expect.stringMatching(/forced tool call/) as unknown });
  });

  it('shows the conversations not yet journaled, as they go, and tells of each change', async () => {
    let changes = 0;
    const { live, journal } = await open(
      () => Date.parse('2026-01-01T00:00:05.000Z'),
      () => void (changes += 1),
    );
    const q: ConversationMessage = { role: 'user', content: 'What is 2 + 3?' };
    live.served(served([q], 'It is **5**.', { affinity: { sessionId: 'claw-1:0' } }));
    expect(live.openConversations()).toEqual([
      {
        name: 'affinity:claw-1',
        by: 'affinity',
        turns: 1,
        judged: 0,
        toTrain: 0,
        helperTurns: 0,
        lastServedAt: Date.parse('2026-01-01T00:00:05.000Z'),
        exclusion: null,
      },
    ]);
    live.served(
      served([q, { role: 'assistant', content: 'It is **5**.' }, { role: 'user', content: COMPLAINT }], 'It is 5.', { affinity: { sessionId: 'claw-1:0' } }),
    );
    await live.idle();
    expect(live.openConversations()).toMatchObject([{ turns: 2, judged: 1, toTrain: 1, helperTurns: 0 }]);
    // Two turns served, one judgment done.
    expect(changes).toBe(3);
    // One of the agent's helper runs for it (a system prompt of its own): counted and shown, never a turn of it.
    live.served(served([{ role: 'system', content: 'You are a context summarization assistant.' }, q], 'A sum.', { affinity: { sessionId: 'claw-1' } }));
    await live.idle();
    expect(live.openConversations()).toMatchObject([{ turns: 2, judged: 1, toTrain: 1, helperTurns: 1 }]);
    expect(changes).toBe(4);
    await live.closeAll();
    expect(live.openConversations()).toEqual([]);
    await journal.close();
  });

  it('excludes a conversation a person asked to while it was open, the moment it is journaled and before the feed gets its turns', async () => {
    const { live, journal, fed } = await open(() => 0);
    const h = { sessionId: 'mine', turnType: 'main' as const };
    const q: ConversationMessage = { role: 'user', content: 'What is 2 + 3?' };
    live.served(served([q], 'It is **5**.', h));
    expect(live.excludeWhenJournaled('header:mine', 'private')).toBe(true);
    expect(live.excludeWhenJournaled('header:nobody', 'private')).toBe(false);
    expect(live.openConversations()).toMatchObject([{ name: 'header:mine', exclusion: 'private' }]);
    // It goes on: the next turn is still its own, and judged.
    live.served(served([q, { role: 'assistant', content: 'It is **5**.' }, { role: 'user', content: COMPLAINT }], 'It is 5.', { ...h, sessionDone: true }));
    let excludedBeforeFeed: boolean | undefined;
    const stop = journal.onEvent((e) => {
      if (e.type === 'session-excluded') excludedBeforeFeed = fed.length === 0;
    });
    await live.idle();
    stop();
    const kinds = journal.events.map((e) => e.type);
    expect(kinds.slice(-2)).toEqual(['session-completed', 'session-excluded']);
    expect(journal.events.at(-1)).toMatchObject({ session: 0, reason: 'private', trainedIn: [] });
    expect(excludedBeforeFeed).toBe(true);
    await journal.close();
  });
});
