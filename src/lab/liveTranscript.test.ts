// The desktop reads back what live mode writes: a session journaled by the
// real LiveSessions (rule judge, a temporary run folder) is read as the run
// view's detail and as the Live page's transcript.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTurnJudge } from '../core/judge/createTurnJudge';
import type { JournalEvent } from '../core/journal/journalEvents';
import { RunJournal } from '../core/journal/runJournal';
import type { ConversationMessage } from '../core/protocols/engineProtocol';
import { LiveSessions } from '../run/live/liveSessions';
import type { TurnRecord } from '../run/turnLog';
import { liveTranscriptView, readLiveTranscriptFile, styleVerdict } from './liveTranscript';
import { writeTestRecipe } from '../../tests/helpers/testRecipe';
import { RunView } from '../contract';
import { loadRecipe } from '../core/recipe/loadRecipe';
import { buildRunView } from './runView';
import { readSessionDetail, SessionDetailCache } from './sessionDetails';
import { sessionTrainings } from './sessionTraining';

const COMPLAINT = 'This looks too AI-written. Write plain sentences without bold.';

function served(id: string, messages: ConversationMessage[], text: string, done = false): TurnRecord {
  return {
    id,
    sessionId: 'rl-1',
    turnType: 'main',
    sessionDone: done,
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
  };
}

describe('a live session read back for the desktop', () => {
  let runDir: string;
  afterEach(async () => {
    await rm(runDir, { recursive: true, force: true });
  });

  it('shows the first message and reply with its style verdict, and every turn with the next state that judged it', async () => {
    runDir = await mkdtemp(path.join(tmpdir(), 'gatelab-live-transcript-'));
    const journal = await RunJournal.open(runDir);
    await journal.append({
      type: 'run-started',
      runId: 'r',
      recipeFile: 'x',
      recipe: {},
      baseVersion: { version: 'base', sha256: 'a'.repeat(64) },
      live: true,
    });
    const live = new LiveSessions({
      runDir,
      runId: 'r',
      journal,
      judge: createTurnJudge({ prm: { kind: 'rule' }, hint: { kind: 'rule', min_chars: 10 } }),
      sampling: { countPromptTokens: async (messages) => messages.length * 10, maxPositions: 512 },
      feed: { add: () => undefined },
      onFatal: (error) => {
        throw error;
      },
    });
    const q: ConversationMessage = { role: 'user', content: 'What is 2 + 3?' };
    live.served(served('a', [q], 'It is **5**.'));
    live.served(served('b', [q, { role: 'assistant', content: 'It is **5**.' }, { role: 'user', content: COMPLAINT }], 'It is 5.', true));
    await live.idle();
    const event = journal.events.find((e): e is Extract<JournalEvent, { type: 'session-completed' }> => e.type === 'session-completed')!;

    const detail = await readSessionDetail(runDir, event);
    expect(detail).toMatchObject({
      question: 'What is 2 + 3?',
      gold: null,
      firstReply: 'It is **5**.',
      reaction: COMPLAINT,
      reward: -1,
      live: { name: 'header:rl-1', recognisedBy: 'header' },
    });
    // The bold is marked; the missing gold answer is not held against a reply that had none to give.
    expect(detail.verdict.failures).not.toContain('no-gold-answer');
    expect(detail.verdict.markers.map((m) => m.kind)).toContain('bold');

    const view = liveTranscriptView(await readLiveTranscriptFile(runDir, event), sessionTrainings(journal.events).get(0)!);
    expect(view).toMatchObject({ session: 0, name: 'header:rl-1', recognisedBy: 'header', training: { samples: 1, judgedTurns: 1, excluded: null } });
    expect(view.turns.map((t) => [t.user, t.nextState, t.reward])).toEqual([
      ['What is 2 + 3?', COMPLAINT, -1],
      [COMPLAINT, null, null],
    ]);
    expect(view.turns[1]!.skipped).toMatch(/no next state/);

    // The run view the renderer gets holds it, and passes the contract (live mode's extra curve columns left out).
    const started = journal.events[0] as { recipe: unknown };
    started.recipe = (await loadRecipe(await writeTestRecipe(runDir, {}))).recipe;
    const cache = new SessionDetailCache(runDir);
    expect(await cache.load(journal.events)).toEqual([]);
    const runView = RunView.parse(
      buildRunView({
        runDir,
        events: journal.events,
        details: cache.all,
        liveness: { phase: 'running', error: null, heldBy: null, running: null, injections: [], serving: null, update: 1 },
      }),
    );
    expect(runView.header.live).toEqual({ serving: null, open: [] });
    expect(runView.sessions).toMatchObject([{ session: 0, live: { name: 'header:rl-1', recognisedBy: 'header' }, training: { samples: 1 } }]);
    await journal.close();
  });

  it('accepts a plain reply by its style alone', () => {
    expect(styleVerdict('It is 5, because 2 + 3 = 5.')).toMatchObject({ failures: expect.not.arrayContaining(['no-gold-answer']) as unknown, goldAt: null });
    expect(styleVerdict('')).toMatchObject({ accepted: false, reason: 'no-reply' });
  });
});
