// The OpenAI-compatible student end to end: a real run of the embedded recipe
// whose student is played by a language model behind an OpenAI-compatible
// endpoint — here the embedded policy itself, through a second GateLab
// gateway (a real engine process, a real HTTP server, the official `openai`
// client). Checks the seam, not the quality of a 2 M-parameter student.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedEngine } from '../src/backends/embedded/embeddedPolicy';
import type { JournalEvent } from '../src/core/journal/journalEvents';
import { LiveRun } from '../src/run/liveRun';
import { createRun } from '../src/run/createRun';
import type { SessionResult } from '../src/run/runSession';
import { EngineTokenizer } from '../src/core/protocols/engineTokenizer';
import { DEFAULT_MODEL_ID, startGateway, type Gateway } from '../src/surfaces/gateway/gatewayServer';
import type { StartedEngine } from '../src/processes/rpcEngineClient';
import { ServingState } from '../src/run/servingState';
import { repoRoot, writeTestRecipe } from './helpers/testRecipe';

const KEY_ENV = 'GATELAB_TEST_STUDENT_KEY';
const PERSONA = 'A student who wants homework solutions that do not look AI-written but still show every step.';

describe('a run whose student is an OpenAI-compatible endpoint (the embedded policy behind GateLab’s own gateway)', () => {
  let root: string;
  let engine: StartedEngine;
  let studentGateway: Gateway;
  let events: JournalEvent[];
  let runDir: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'gatelab-student-'));
    engine = await startEmbeddedEngine({ modelDir: path.join(repoRoot, 'assets', 'models', 'policy') });
    const token = 'student-endpoint-token-0123456789';
    studentGateway = await startGateway({
      engine: engine.client,
      serving: new ServingState(engine.client, { version: 'base', sha256: engine.info.baseSha256 }, engine.info.baseSha256),
      tokenizer: new EngineTokenizer(engine.client),
      token,
    });
    process.env[KEY_ENV] = token;
    const recipe = await writeTestRecipe(root, {
      sessions: 1,
      maxTurns: 2,
      maxTokens: 48,
      probeProblems: 2,
      probeMaxTokens: 32,
      confirm: 'manual',
      student: {
        kind: 'openai',
        endpoint: { base_url: `${studentGateway.url}/v1`, model: DEFAULT_MODEL_ID, api_key_env: KEY_ENV },
        persona: PERSONA,
        max_tokens: 64,
      },
    });
    runDir = await createRun(recipe, path.join(root, 'run'), {});
    const run = await LiveRun.open(runDir);
    try {
      await run.runSessions();
      events = [...run.journal.events];
    } finally {
      await run.close();
    }
  }, 300_000);

  afterAll(async () => {
    delete process.env[KEY_ENV];
    await studentGateway?.close();
    await engine?.client.close();
    await rm(root, { recursive: true, force: true });
  });

  it('opens with the task’s request, and the student model writes the reaction the turn is judged from', async () => {
    const session = events.find((e): e is Extract<JournalEvent, { type: 'session-completed' }> => e.type === 'session-completed');
    expect(session?.turns).toBe(2);
    const transcript = JSON.parse(await readFile(path.join(runDir, session!.transcript), 'utf8')) as SessionResult;
    const [first, second] = transcript.turns;
    expect(first?.user).toMatch(/^.*homework\/\d+\.txt/);
    // The reaction is the student endpoint's reply, verbatim: the next user message of the session.
    const asked = studentGateway.turnLog.all();
    expect(asked).toHaveLength(1);
    expect(first?.nextState).toBe(asked[0]?.response.text.trim());
    expect(first?.nextState?.length).toBeGreaterThan(0);
    expect(second?.user).toBe(first?.nextState);
    expect(first?.judgment).not.toBeNull();
  });

  it('asks the endpoint with the persona and the reaction contract, the conversation turned around', () => {
    const [request] = studentGateway.turnLog.all();
    const messages = request!.messages;
    expect(messages[0]?.role).toBe('system');
    expect(messages[0]?.content).toContain(PERSONA);
    expect(messages[0]?.content).toContain('HOMEWORK_DONE');
    expect(messages.slice(1).map((m) => m.role)).toEqual(['assistant', 'user']);
  });
});
