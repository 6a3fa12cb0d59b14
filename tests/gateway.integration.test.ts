/**
 * The gateway on the real engine worker and the committed embedded policy,
 * driven by the official `openai` client: replies, streaming, logprobs, the
 * turn log, a real context overflow, a real engine crash (500, then served
 * again), and a swap to a real LoRA adapter between requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { startEmbeddedEngine } from '../src/backends/embedded/embeddedPolicy';
import type { StartedEngine } from '../src/processes/rpcEngineClient';
import { DEFAULT_MODEL_ID, startGateway, type Gateway } from '../src/surfaces/gateway/gatewayServer';
import { EngineTokenizer } from '../src/core/protocols/engineTokenizer';
import { ServingState } from '../src/run/servingState';
import { adapterSpec } from '../src/core/weights/adapterSpec';
import { LORA_MODULES, policyShape, readPolicyConfig } from '../src/core/weights/policyConfig';
import { serializeSafetensors, type Float32Tensor } from '../src/core/weights/safetensors';

// GATELAB_TEST_MODEL_DIR points the test at another build of the policy (as the engine's tests allow).
const MODEL_DIR = process.env.GATELAB_TEST_MODEL_DIR ?? join(import.meta.dirname, '..', 'assets', 'models', 'policy');
const TOKEN = 'integration-token-0123456789';
const homework = [
  {
    role: 'user' as const,
    content:
      'My homework is in homework/3.txt. Here it is: "A baker makes 12 trays of 24 cookies and sells 150 of them. How many cookies are left?" Can you help me solve it?',
  },
];

let engine: StartedEngine;
let gateway: Gateway;
let tokenizer: EngineTokenizer;
let client: OpenAI;

/** A rank-2 LoRA adapter with small seeded random factors (B ≠ 0, so it changes the model). */
async function writeRandomAdapter(dir: string, seed: number, scale: number): Promise<{ version: string; sha256: string; path: string }> {
  const shape = policyShape(await readPolicyConfig(join(MODEL_DIR, 'config.json')));
  let state = seed >>> 0;
  const random = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32 - 0.5;
  };
  const tensors = new Map<string, Float32Tensor>();
  for (const spec of adapterSpec(shape, { rank: 2, alpha: 4, targets: LORA_MODULES })) {
    const data = Float32Array.from({ length: spec.shape[0] * spec.shape[1] }, () => random() * scale);
    tensors.set(spec.name, { shape: [...spec.shape], data });
  }
  const bytes = serializeSafetensors(tensors, { format: 'pt', lora_alpha: '4', r: '2' });
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  mkdirSync(join(dir, 'blobs'), { recursive: true });
  const path = join(dir, 'blobs', `${sha256}.safetensors`);
  writeFileSync(path, bytes);
  return { version: `v1-${sha256.slice(0, 8)}`, sha256, path };
}

beforeAll(async () => {
  engine = await startEmbeddedEngine({ modelDir: MODEL_DIR });
  tokenizer = new EngineTokenizer(engine.client);
  gateway = await startGateway({
    engine: engine.client,
    serving: new ServingState(engine.client, { version: 'base', sha256: engine.info.baseSha256 }, engine.info.baseSha256),
    tokenizer,
    token: TOKEN,
  });
  client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: TOKEN, maxRetries: 0 });
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await engine?.client.close();
});

describe('gateway on the real engine', () => {
  it('answers a homework request with usage, logprobs and the serving version, and logs the turn', async () => {
    const { data, response } = await client.chat.completions
      .create(
        { model: DEFAULT_MODEL_ID, messages: homework, seed: 1234, max_tokens: 200, logprobs: true, top_logprobs: 4 },
        { headers: { 'X-Session-Id': 'it-1', 'X-Turn-Type': 'main' } },
      )
      .withResponse();
    const choice = data.choices[0];
    expect(data.usage?.completion_tokens).toBeGreaterThan(0);
    expect(typeof choice?.message.content).toBe('string');
    expect(data.system_fingerprint).toBe('base');
    expect(response.headers.get('x-gatelab-version')).toBe('base');
    expect(data.usage?.prompt_tokens).toBe(await tokenizer.countPromptTokens(homework));
    const content = choice?.logprobs?.content ?? [];
    expect(content.map((t) => t.token).join('')).toBe(choice?.message.content);
    expect(content.every((t) => t.logprob <= 0 && t.top_logprobs.length === 4)).toBe(true);

    const [turn] = gateway.turnLog.forSession('it-1');
    expect(turn?.turnType).toBe('main');
    expect(turn?.response.text).toBe(choice?.message.content);
    expect(turn?.response.tokenIds).toHaveLength(data.usage?.completion_tokens ?? -1);
    expect(turn?.response.forced).toHaveLength(turn?.response.tokenIds.length ?? -1);
    expect(turn?.timings.promptMs).toBeGreaterThan(0);
  });

  it('streams the same reply as the non-streamed request with the same seed', async () => {
    const request = { model: DEFAULT_MODEL_ID, messages: homework, seed: 99, max_tokens: 120 };
    const whole = await client.chat.completions.create(request);
    const stream = await client.chat.completions.create({ ...request, stream: true, stream_options: { include_usage: true } });
    let text = '';
    let contentChunks = 0;
    let usage = null;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta.content ?? '';
      if (delta !== '') contentChunks += 1;
      text += delta;
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe(whole.choices[0]?.message.content);
    expect(usage).toEqual(whole.usage);
    // token by token as decoded, not one blob at the end
    if (text.length > 4) expect(contentChunks).toBeGreaterThan(1);
  });

  it('refuses a real context overflow with the lengths, and keeps serving', async () => {
    const long = [{ role: 'user' as const, content: 'seven '.repeat(tokenizer.maxPositions + 10) }];
    const error = await client.chat.completions.create({ model: DEFAULT_MODEL_ID, messages: long }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, code: 'context_length_exceeded' });
    expect((error as Error).message).toContain(`maximum context length is ${tokenizer.maxPositions} tokens`);
    const ok = await client.chat.completions.create({ model: DEFAULT_MODEL_ID, messages: homework, max_tokens: 8 });
    expect(ok.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('answers 500 when the engine process dies mid-request, then serves again after the restart', async () => {
    const pid = engine.pid() as number;
    expect(pid).toBeGreaterThan(0);
    // Freeze the worker so the request is surely in flight when it dies.
    process.kill(pid, 'SIGSTOP');
    const dying = client.chat.completions.create({ model: DEFAULT_MODEL_ID, messages: homework, max_tokens: 16 });
    while (gateway.serving.inFlight === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    process.kill(pid, 'SIGKILL');
    await expect(dying).rejects.toMatchObject({ status: 500, type: 'server_error' });
    const again = await client.chat.completions.create({ model: DEFAULT_MODEL_ID, messages: homework, max_tokens: 8 });
    expect(again.system_fingerprint).toBe('base');
    expect(engine.pid()).not.toBe(pid);
  }, 60_000);

  it('swaps to a real adapter between requests: the in-flight stream ends on base, the next request runs on the adapter', async () => {
    const adapter = await writeRandomAdapter(mkdtempSync(join(tmpdir(), 'gatelab-it-')), 7, 0.5);
    const inFlight = await client.chat.completions.create({ model: DEFAULT_MODEL_ID, messages: homework, seed: 5, max_tokens: 150, stream: true });
    const fingerprints = new Set<string>();
    let swap: Promise<unknown> | null = null;
    let after: Promise<OpenAI.Chat.Completions.ChatCompletion> | null = null;
    for await (const chunk of inFlight) {
      fingerprints.add(chunk.system_fingerprint ?? '');
      if (!swap) {
        // ask for the swap and a new request while this one is mid-stream
        swap = gateway.serving.swapTo(adapter);
        after = client.chat.completions.create({ model: DEFAULT_MODEL_ID, messages: homework, seed: 5, max_tokens: 150 });
      }
    }
    expect([...fingerprints]).toEqual(['base']);
    await expect(swap).resolves.toEqual({ version: adapter.version, sha256: adapter.sha256 });
    const next = await (after as Promise<OpenAI.Chat.Completions.ChatCompletion>);
    expect(next.system_fingerprint).toBe(adapter.version);
    const turns = gateway.turnLog.all().slice(-2);
    expect(turns.map((t) => t.version)).toEqual(['base', adapter.version]);
    // the adapter really changed the model: the same seed now gives other log-probs
    expect(turns[1]?.response.logprobs.slice(0, 5)).not.toEqual(turns[0]?.response.logprobs.slice(0, 5));
    await gateway.serving.swapTo(null);
    expect((await client.chat.completions.create({ model: DEFAULT_MODEL_ID, messages: homework, max_tokens: 4 })).system_fingerprint).toBe('base');
  }, 60_000);
});
