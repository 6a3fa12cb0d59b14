// The LLM judge's HTTP protocol against a local stand-in endpoint that answers
// with queued texts (a unit test: it checks what the client sends, how it
// counts votes and how it fails; the test against the real gateway serving
// the embedded model is tests/judge-llm.integration.test.ts).

import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JudgeUnavailableError, createLlmHintJudge, createLlmPrm } from './llmJudge';
import { composeTurnJudge } from './turnJudge';
import { dispatchTurn } from './trainDispatch';

type Reply = { status: number; body: string };
const completion = (content: string | null): Reply => ({
  status: 200,
  body: JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] }),
});

let server: Server;
let baseUrl: string;
let replies: Reply[];
let requests: { url: string; auth: string | undefined; body: Record<string, unknown> }[];

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let data = '';
    req.on('data', (c: Buffer) => (data += c.toString('utf8')));
    req.on('end', () => resolve(data));
  });
}

beforeEach(async () => {
  replies = [];
  requests = [];
  server = createServer((req, res) => {
    void readBody(req).then((raw) => {
      requests.push({ url: req.url ?? '', auth: req.headers.authorization, body: JSON.parse(raw) as Record<string, unknown> });
      const reply = replies.shift() ?? { status: 500, body: '{"error":{"message":"no queued reply"}}' };
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterEach(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const TURN = { assistantOutput: '**Answer:** 36', nextState: 'This looks too AI-written. Drop the bold. Redo it naturally and keep every step.' };

describe('LLM PRM', () => {
  it('asks m times with the configured model, key, sampling and per-vote seeds, and takes the plurality', async () => {
    replies = [completion('\\boxed{-1}'), completion('I think \\boxed{-1}'), completion('\\boxed{1}')];
    const prm = createLlmPrm({ baseUrl, model: 'judge-model', apiKey: 'secret-key', votes: 3, temperature: 0.6, maxTokens: 256, seed: 40 });
    const j = await prm.score(TURN);
    expect(j.score).toBe(-1);
    expect([...j.votes].sort()).toEqual([-1, -1, 1].sort());
    expect(j.errors).toEqual([]);
    expect(requests).toHaveLength(3);
    for (const r of requests) {
      expect(r.url).toBe('/v1/chat/completions');
      expect(r.auth).toBe('Bearer secret-key');
      expect(r.body).toMatchObject({ model: 'judge-model', temperature: 0.6, max_tokens: 256, stream: false });
      const messages = r.body.messages as { role: string; content: string }[];
      expect(messages[1]?.content).toContain(TURN.assistantOutput);
      expect(messages[1]?.content).toContain(TURN.nextState);
    }
    expect(requests.map((r) => r.body.seed).sort()).toEqual([40, 41, 42]);
  });

  it('a tie is 0; a vote without a boxed score is invalid', async () => {
    replies = [completion('\\boxed{1}'), completion('\\boxed{-1}'), completion('no idea')];
    const j = await createLlmPrm({ baseUrl, model: 'm' }).score(TURN);
    expect(j.score).toBe(0);
    expect(j.votes.filter((v) => v === null)).toHaveLength(1);
    expect(requests[0]?.auth).toBeUndefined();
  });

  it('a failed request is an invalid vote, listed in errors', async () => {
    replies = [completion('\\boxed{1}'), { status: 503, body: '{"error":{"message":"swapping"}}' }, completion('\\boxed{1}')];
    const j = await createLlmPrm({ baseUrl, model: 'm' }).score(TURN);
    expect(j.score).toBe(1);
    expect(j.votes.filter((v) => v === null)).toHaveLength(1);
    expect(j.errors).toHaveLength(1);
    expect(j.errors[0]).toMatch(/HTTP 503: .*swapping/);
  });

  it('fails closed with a clear error when every request fails', async () => {
    replies = [
      { status: 401, body: '{"error":{"message":"bad token"}}' },
      { status: 401, body: 'x' },
      { status: 401, body: 'x' },
    ];
    await expect(createLlmPrm({ baseUrl, model: 'm' }).score(TURN)).rejects.toThrow(JudgeUnavailableError);
    replies = [
      { status: 200, body: 'not json' },
      { status: 200, body: '{"choices":[]}' },
      { status: 200, body: '{}' },
    ];
    await expect(createLlmPrm({ baseUrl, model: 'm' }).score(TURN)).rejects.toThrow(/prm judge could not be reached/);
  });

  it('fails closed when nothing listens', async () => {
    const dead = createLlmPrm({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', votes: 1, timeoutMs: 2000 });
    await expect(dead.score(TURN)).rejects.toThrow(JudgeUnavailableError);
  });

  it('rejects a bad configuration', () => {
    expect(() => createLlmPrm({ baseUrl: 'not a url', model: 'm' })).toThrow();
    expect(() => createLlmPrm({ baseUrl, model: '' })).toThrow();
    expect(() => createLlmPrm({ baseUrl, model: 'm', votes: 0 })).toThrow();
  });
});

describe('LLM hint judge', () => {
  it('keeps the longest hint of the positive decisions', async () => {
    replies = [
      completion('\\boxed{1}[HINT_START]Write plain sentences.[HINT_END]'),
      completion('\\boxed{1}[HINT_START]Write plain sentences without bold, and keep every step.[HINT_END]'),
      completion('\\boxed{-1}'),
    ];
    const j = await createLlmHintJudge({ baseUrl, model: 'm' }).extractHint(TURN);
    expect(j).toMatchObject({ hint: 'Write plain sentences without bold, and keep every step.', hintAccepted: true });
    const system = (requests[0]?.body.messages as { content: string }[])[0]?.content ?? '';
    expect(system).toContain('[HINT_START]');
  });

  it('a hint of 10 characters or fewer is not accepted', async () => {
    replies = [completion('\\boxed{1}[HINT_START]Be plain.[HINT_END]')];
    const j = await createLlmHintJudge({ baseUrl, model: 'm', votes: 1 }).extractHint(TURN);
    expect(j).toMatchObject({ hint: 'Be plain.', hintAccepted: false });
  });
});

describe('PRM and hint judge together', () => {
  it('dispatch a complaint to both terms', async () => {
    // 3 PRM requests and 3 hint requests, in whatever order they arrive: answer by the prompt they carry.
    server.removeAllListeners('request');
    server.on('request', (req, res) => {
      void readBody(req).then((raw) => {
        const system = (JSON.parse(raw) as { messages: { content: string }[] }).messages[0]?.content ?? '';
        const text = system.includes('[HINT_START]') ? '\\boxed{1}[HINT_START]Drop the bold and write plain sentences.[HINT_END]' : '\\boxed{-1}';
        res.writeHead(200, { 'content-type': 'application/json' }).end(completion(text).body);
      });
    });
    const judge = composeTurnJudge(createLlmPrm({ baseUrl, model: 'm' }), createLlmHintJudge({ baseUrl, model: 'm' }));
    const j = await judge.judgeTurn(TURN);
    expect(j).toMatchObject({ score: -1, votes: [-1, -1, -1], hintAccepted: true, backends: { prm: 'openai', hint: 'openai' } });
    expect(dispatchTurn(j)).toEqual({ mode: 'both', reward: -1, hint: 'Drop the bold and write plain sentences.' });
  });
});
