/**
 * The LLM judge against a real local OpenAI-compatible endpoint: GateLab's
 * gateway serving the committed embedded policy on the real engine worker.
 * This checks the protocol and the parsing, not the verdict (the tiny policy
 * is no judge): m requests per judgment reach the endpoint with the judge's
 * prompts, each vote is exactly what parsing the returned text gives, seeded
 * votes repeat, and a wrong key fails closed with the endpoint's 401.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { startEmbeddedEngine } from '../src/backends/embedded/embeddedPolicy';
import type { StartedEngine } from '../src/processes/rpcEngineClient';
import { DEFAULT_MODEL_ID, startGateway, type Gateway } from '../src/surfaces/gateway/gatewayServer';
import { EngineTokenizer } from '../src/core/protocols/engineTokenizer';
import { ServingState } from '../src/run/servingState';
import { JudgeUnavailableError, createLlmHintJudge, createLlmPrm, type LlmEndpointConfig } from '../src/core/judge/llmJudge';
import { parseHintVote, parsePrmVote } from '../src/core/judge/llmPrompts';
import { composeTurnJudge } from '../src/core/judge/turnJudge';
import { pluralityVote, selectHint } from '../src/core/judge/votes';
import { dispatchTurn } from '../src/core/judge/trainDispatch';

// GATELAB_TEST_MODEL_DIR points the test at another build of the policy (as the engine's tests allow).
const MODEL_DIR = process.env.GATELAB_TEST_MODEL_DIR ?? join(import.meta.dirname, '..', 'assets', 'models', 'policy');
const TOKEN = 'judge-integration-token-0123456789';
const TURN = {
  assistantOutput: '**Step 1:** 20 + 44 = 64\n**Step 2:** 100 - 64 = 36',
  nextState: 'This looks too AI-written. Drop the bold and write it like a student would, in plain sentences. Redo it naturally and keep every step.',
};

let engine: StartedEngine;
let gateway: Gateway;
let endpoint: LlmEndpointConfig;

beforeAll(async () => {
  engine = await startEmbeddedEngine({ modelDir: MODEL_DIR });
  gateway = await startGateway({
    engine: engine.client,
    serving: new ServingState(engine.client, { version: 'base', sha256: engine.info.baseSha256 }, engine.info.baseSha256),
    tokenizer: new EngineTokenizer(engine.client),
    token: TOKEN,
  });
  // Short answers: the test is about the protocol, and the CPU is shared.
  endpoint = { baseUrl: `${gateway.url}/v1`, model: DEFAULT_MODEL_ID, apiKey: TOKEN, votes: 3, maxTokens: 48, seed: 7 };
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await engine?.client.close();
});

describe('LLM judge on the real gateway', () => {
  it('sends m PRM requests and parses each returned text into its vote', async () => {
    const before = gateway.turnLog.size;
    const j = await createLlmPrm(endpoint).score(TURN);
    expect(j.errors).toEqual([]);
    expect(j.votes).toHaveLength(3);
    expect(j.transcripts).toHaveLength(3);
    // The endpoint saw three requests: the judge's prompt with this turn, the
    // configured sampling, one seed per vote, as side turns (a judge call never trains).
    const served = gateway.turnLog.all().slice(before);
    expect(served).toHaveLength(3);
    for (const turn of served) {
      expect(turn.turnType).toBe('side');
      expect(turn.messages[0]?.content).toContain('process reward model');
      expect(turn.messages[1]?.content).toContain(TURN.nextState);
      expect(turn.sampling).toMatchObject({ temperature: 0.6, maxTokens: 48 });
    }
    expect(served.map((t) => t.seed).sort()).toEqual([7, 8, 9]);
    // What the judge read is what the endpoint wrote.
    expect([...j.transcripts].sort()).toEqual(served.map((t) => t.response.text).sort());
    // Every vote is what parsing its text gives; the score is their plurality.
    expect(j.votes).toEqual(j.transcripts.map(parsePrmVote));
    expect(j.score).toBe(pluralityVote(j.votes));
  });

  it('repeats the same votes with the same seeds', async () => {
    const a = await createLlmPrm(endpoint).score(TURN);
    const b = await createLlmPrm(endpoint).score(TURN);
    expect(b.transcripts).toEqual(a.transcripts);
  });

  it('the hint judge and the dispatch table work on what the endpoint returns', async () => {
    const judge = composeTurnJudge(createLlmPrm(endpoint), createLlmHintJudge(endpoint));
    const j = await judge.judgeTurn(TURN);
    expect(j.errors).toEqual([]);
    expect(j.transcripts.hint).toHaveLength(3);
    const expected = selectHint(j.transcripts.hint.map(parseHintVote));
    expect(j.hintAccepted).toBe(expected.hintAccepted);
    expect(j.hint).toBe(expected.hint);
    expect(['both', 'opd-only', 'rl-only', 'none']).toContain(dispatchTurn(j).mode);
  });

  it("fails closed with the endpoint's 401 when the key is wrong", async () => {
    const wrong = createLlmPrm({ ...endpoint, apiKey: 'not-the-token-0123456789' });
    const error = await wrong.score(TURN).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JudgeUnavailableError);
    expect((error as JudgeUnavailableError).errors[0]).toMatch(/HTTP 401/);
  });
});
