/**
 * The gateway's HTTP behaviour, driven by the official `openai` client, with
 * a test double of the engine (the real engine is tested in
 * tests/gateway.integration.test.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { startGateway, type Gateway } from './gatewayServer';
import { ServingState } from '../../run/servingState';
import { EngineDouble, WordTokenizerDouble, gate } from './testing/engineDouble';
import { EngineError } from '../../core/protocols/engineProtocol';
import type { TurnRecord } from '../../run/turnLog';

const TOKEN = 'test-token-0123456789abcdef';
const MODEL = 'gatelab-policy';
const ask = [{ role: 'user' as const, content: 'what is 40 plus 2' }];

let engine: EngineDouble;
let gateway: Gateway;
let client: OpenAI;

beforeEach(async () => {
  engine = new EngineDouble();
  gateway = await startGateway({
    engine,
    serving: new ServingState(engine, { version: 'base', sha256: null }),
    tokenizer: new WordTokenizerDouble(64),
    token: TOKEN,
    bodyLimitBytes: 4096,
  });
  client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: TOKEN, maxRetries: 0 });
});
afterEach(async () => {
  await gateway.close();
});

function makeAdapterBlob(content: string): { version: string; sha256: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'gatelab-gw-'));
  const sha256 = createHash('sha256').update(content).digest('hex');
  const path = join(dir, `${sha256}.safetensors`);
  writeFileSync(path, content);
  return { version: `v3-${sha256.slice(0, 8)}`, sha256, path };
}

/** A raw request, for what the SDK will not send (bad JSON, bad Host, wrong methods). */
function raw(
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${gateway.url}${path}`,
      { method: options.method ?? 'POST', headers: { authorization: `Bearer ${TOKEN}`, ...options.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

function errorOf(body: string): { message: string; type: string; param: string | null; code: string | null } {
  const parsed = JSON.parse(body) as { error: { message: string; type: string; param: string | null; code: string | null } };
  return parsed.error;
}

describe('chat completions', () => {
  it('answers a non-streaming request in OpenAI shape, naming the version', async () => {
    const { data, response } = await client.chat.completions.create({ model: MODEL, messages: ask, seed: 7 }).withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.id).toMatch(/^chatcmpl-/);
    expect(data.model).toBe(MODEL);
    expect(data.system_fingerprint).toBe('base');
    expect(response.headers.get('x-gatelab-version')).toBe('base');
    const choice = data.choices[0];
    expect(choice?.message.role).toBe('assistant');
    expect(choice?.message.content?.length).toBeGreaterThan(0);
    expect(choice?.finish_reason).toBe('stop');
    expect(choice?.logprobs).toBeNull();
    // "what is 40 plus 2": role + 5 words + end, then the generation prompt
    const completionTokens = data.usage?.completion_tokens ?? 0;
    expect(completionTokens).toBeGreaterThan(0);
    expect(data.usage).toEqual({ prompt_tokens: 8, completion_tokens: completionTokens, total_tokens: 8 + completionTokens });
    // the recipe's sampling when the request leaves it out, the rest of the context as the limit
    expect(engine.calls[0]?.sampling).toEqual({ temperature: 0.6, topP: 0.95, topK: 20, maxTokens: 64 - 8 });
    expect(engine.calls[0]?.seed).toBe(7);
  });

  it('passes sampling fields, max_completion_tokens and the top_k extension to the engine', async () => {
    const body = { model: MODEL, messages: ask, temperature: 0, top_p: 0.5, max_completion_tokens: 3, top_k: 5 };
    const completion = await client.chat.completions.create(body);
    expect(engine.calls[0]?.sampling).toEqual({ temperature: 0, topP: 0.5, topK: 5, maxTokens: 3 });
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(completion.usage?.completion_tokens).toBe(3);
  });

  it('returns logprobs with token strings, UTF-8 bytes and top alternatives, leaving out the end token', async () => {
    const completion = await client.chat.completions.create({ model: MODEL, messages: ask, seed: 11, logprobs: true, top_logprobs: 3 });
    const choice = completion.choices[0];
    const content = choice?.logprobs?.content ?? [];
    expect(content.length).toBeGreaterThan(0);
    expect(content.map((t) => t.token).join('')).toBe(choice?.message.content);
    for (const token of content) {
      expect(token.bytes).toEqual(Array.from(Buffer.from(token.token, 'utf8')));
      expect(token.top_logprobs).toHaveLength(3);
      expect(token.top_logprobs[0]?.token).toBe(token.token);
      expect(token.top_logprobs[0]?.logprob).toBe(token.logprob);
    }
    // the turn log always keeps at least the recipe's top-4, whatever the client asked
    expect(engine.calls[0]?.logprobsTopK).toBe(4);
  });

  it('streams chunks per the OpenAI spec with usage when asked, matching the non-streamed reply', async () => {
    const whole = await client.chat.completions.create({ model: MODEL, messages: ask, seed: 5 });
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: ask,
      seed: 5,
      stream: true,
      stream_options: { include_usage: true },
      logprobs: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.system_fingerprint === 'base')).toBe(true);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(whole.choices[0]?.message.content);
    const finish = chunks.filter((c) => c.choices[0]?.finish_reason);
    expect(finish).toHaveLength(1);
    expect(finish[0]?.choices[0]?.finish_reason).toBe('stop');
    const last = chunks[chunks.length - 1];
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toEqual(whole.usage);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    const streamedLogprobs = chunks.flatMap((c) => c.choices[0]?.logprobs?.content ?? []);
    expect(streamedLogprobs.map((t) => t.token).join('')).toBe(text);
  });

  it('ends the SSE stream with [DONE] and omits usage without include_usage', async () => {
    const res = await raw('/v1/chat/completions', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: ask, stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(res.headers['x-gatelab-version']).toBe('base');
    const events = res.body.split('\n\n').filter(Boolean);
    expect(events[events.length - 1]).toBe('data: [DONE]');
    for (const event of events.slice(0, -1)) expect(JSON.parse(event.slice('data: '.length))).not.toHaveProperty('usage');
  });

  it('streams an engine that answers all at once as one content chunk', async () => {
    engine.stream = false;
    const stream = await client.chat.completions.create({ model: MODEL, messages: ask, seed: 5, stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('').length).toBeGreaterThan(0);
  });
});

describe('turn log', () => {
  it("records OpenClaw's headers, messages, tokens, log-probs, top-K, version and timings", async () => {
    const appended: TurnRecord[] = [];
    gateway.turnLog.onAppend((turn) => {
      appended.push(turn);
    });
    const completion = await client.chat.completions.create(
      { model: MODEL, messages: [{ role: 'system', content: 'be brief' }, ...ask], seed: 3 },
      { headers: { 'X-Session-Id': 'session-12', 'X-Turn-Type': 'main', 'X-Session-Done': 'true' } },
    );
    const stream = await client.chat.completions.create({ model: MODEL, messages: ask, stream: true }, { headers: { 'X-Session-Id': 'session-12' } });
    for await (const chunk of stream) void chunk;

    const turns = gateway.turnLog.forSession('session-12');
    expect(turns).toHaveLength(2);
    expect(appended).toEqual(turns);
    const [main, side] = turns;
    expect(main).toMatchObject({
      id: completion.id,
      sessionId: 'session-12',
      turnType: 'main',
      sessionDone: true,
      version: 'base',
      sha256: null,
      seed: 3,
      stream: false,
    });
    expect(main?.messages).toEqual([{ role: 'system', content: 'be brief' }, ...ask]);
    expect(main?.response.text).toBe(completion.choices[0]?.message.content);
    expect(main?.response.topIds.every((row) => row.length === 4)).toBe(true);
    expect(main?.response.logprobs).toHaveLength(main?.response.tokenIds.length ?? -1);
    expect(main?.timings.engineMs).toBeGreaterThanOrEqual(0);
    expect(side).toMatchObject({ turnType: 'side', sessionDone: false, stream: true });
    expect(side?.timings.firstTokenMs).not.toBeNull();
  });

  it("records OpenClaw's session-affinity headers as sent, and none when none was", async () => {
    const before = gateway.turnLog.size;
    await client.chat.completions.create({ model: MODEL, messages: ask }, { headers: { session_id: 'sess-4', 'x-client-request-id': 'sess-4:2' } });
    await client.chat.completions.create({ model: MODEL, messages: ask });
    const [withAffinity, without] = gateway.turnLog.all().slice(before);
    expect(withAffinity?.affinity).toEqual({ sessionId: 'sess-4', clientRequestId: 'sess-4:2' });
    expect(without?.affinity).toBeUndefined();
  });

  it('refuses malformed turn headers with a 400 instead of guessing', async () => {
    const bad = client.chat.completions.create({ model: MODEL, messages: ask }, { headers: { 'X-Turn-Type': 'primary' } });
    await expect(bad).rejects.toMatchObject({ status: 400, code: 'invalid_header' });
    const badDone = client.chat.completions.create({ model: MODEL, messages: ask }, { headers: { 'X-Session-Done': 'maybe' } });
    await expect(badDone).rejects.toMatchObject({ status: 400 });
    expect(gateway.turnLog.size).toBe(0);
  });

  it('reports a failing append hook (the journal) as a 500 rather than losing the turn silently', async () => {
    gateway.turnLog.onAppend(() => {
      throw new Error('disk full');
    });
    await expect(client.chat.completions.create({ model: MODEL, messages: ask })).rejects.toMatchObject({ status: 500 });
    const stream = await client.chat.completions.create({ model: MODEL, messages: ask, stream: true });
    await expect(async () => {
      for await (const chunk of stream) void chunk;
    }).rejects.toThrow(/disk full/);
  });
});

describe('errors in OpenAI shape, and the server keeps serving', () => {
  afterEach(async () => {
    // after every error the next request is served normally
    const ok = await client.chat.completions.create({ model: MODEL, messages: ask });
    expect(ok.choices[0]?.message.content?.length).toBeGreaterThan(0);
  });

  it('400 for a body that is not JSON', async () => {
    const res = await raw('/v1/chat/completions', { body: '{"model": ' });
    expect(res.status).toBe(400);
    expect(errorOf(res.body)).toMatchObject({ type: 'invalid_request_error', code: 'invalid_json' });
  });

  it('400 naming the field for invalid or unknown fields', async () => {
    await expect(client.chat.completions.create({ model: MODEL, messages: ask, temperature: 5 })).rejects.toMatchObject({ status: 400, param: 'temperature' });
    await expect(client.chat.completions.create({ model: MODEL, messages: [] })).rejects.toMatchObject({ status: 400, param: 'messages' });
    await expect(client.chat.completions.create({ model: MODEL, messages: ask, n: 2 })).rejects.toMatchObject({ status: 400, param: 'n' });
    await expect(client.chat.completions.create({ model: MODEL, messages: ask, top_logprobs: 2 })).rejects.toMatchObject({
      status: 400,
      param: 'top_logprobs',
    });
    const unknown = await raw('/v1/chat/completions', { body: JSON.stringify({ model: MODEL, messages: ask, stop: ['\n'] }) });
    expect(unknown.status).toBe(400);
    expect(errorOf(unknown.body).message).toMatch(/unrecognized request argument\(s\): stop/);
  });

  it('401 without a key or with a wrong key', async () => {
    const noKey = await raw('/v1/chat/completions', { headers: { authorization: '' }, body: '{}' });
    expect(noKey.status).toBe(401);
    expect(errorOf(noKey.body).code).toBe('invalid_api_key');
    const wrong = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'not-the-token', maxRetries: 0 });
    await expect(wrong.chat.completions.create({ model: MODEL, messages: ask })).rejects.toMatchObject({ status: 401 });
    await expect(wrong.models.list()).rejects.toMatchObject({ status: 401 });
  });

  it('403 for a Host header that is not this loopback server (DNS rebinding)', async () => {
    const res = await raw('/healthz', { method: 'GET', headers: { host: `evil.example:${gateway.port}` } });
    expect(res.status).toBe(403);
    expect(errorOf(res.body).code).toBe('invalid_host');
  });

  it('404 for an unknown model or path, 405 for a wrong method', async () => {
    await expect(client.chat.completions.create({ model: 'gpt-4o', messages: ask })).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
    expect((await raw('/v1/completions', { body: '{}' })).status).toBe(404);
    expect((await raw('/v1/chat/completions', { method: 'GET' })).status).toBe(405);
  });

  it('413 for a body over the limit', async () => {
    const big = [{ role: 'user' as const, content: 'x'.repeat(5000) }];
    await expect(client.chat.completions.create({ model: MODEL, messages: big })).rejects.toMatchObject({ status: 413 });
  });

  it('413 for a chunked body that grows over the limit (no Content-Length)', async () => {
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'transfer-encoding': 'chunked' },
      });
      req.on('response', (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => resolve({ status: r.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      });
      req.on('error', reject);
      for (let i = 0; i < 10; i += 1) req.write('x'.repeat(1000));
      req.end();
    });
    expect(res.status).toBe(413);
    expect(errorOf(res.body).code).toBe('request_too_large');
  });

  it('400 with the lengths on a context overflow', async () => {
    const long = [{ role: 'user' as const, content: Array.from({ length: 70 }, () => 'word').join(' ') }];
    const error = await client.chat.completions.create({ model: MODEL, messages: long }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, code: 'context_length_exceeded', param: 'messages' });
    expect((error as Error).message).toMatch(/maximum context length is 64 tokens.*73 in the messages/);
    // prompt fits, prompt + max_tokens does not
    await expect(client.chat.completions.create({ model: MODEL, messages: ask, max_tokens: 60 })).rejects.toMatchObject({
      status: 400,
      code: 'context_length_exceeded',
    });
    expect(engine.calls).toHaveLength(0);
  });

  it('500 when the engine fails, streamed or not', async () => {
    engine.failNext = new Error('worker exited with code 1');
    await expect(client.chat.completions.create({ model: MODEL, messages: ask })).rejects.toMatchObject({ status: 500, type: 'server_error' });
    engine.failNext = new Error('worker exited with code 1');
    await expect(client.chat.completions.create({ model: MODEL, messages: ask, stream: true })).rejects.toMatchObject({ status: 500 });
  });

  it('400 when the engine itself reports a context overflow', async () => {
    engine.failNext = new EngineError('context_length_exceeded', 'prompt of 70 tokens exceeds 64');
    await expect(client.chat.completions.create({ model: MODEL, messages: ask })).rejects.toMatchObject({ status: 400, code: 'context_length_exceeded' });
  });

  it('500 and no turn when the engine answers with a version other than the serving one', async () => {
    engine.reportVersion = 'v9-deadbeef';
    await expect(client.chat.completions.create({ model: MODEL, messages: ask })).rejects.toMatchObject({ status: 500, code: 'version_mismatch' });
    engine.reportVersion = null;
    expect(gateway.turnLog.size).toBe(0);
  });
});

describe('models and health', () => {
  it('lists the one model and reports health with the serving version', async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual([MODEL]);
    expect((await client.models.retrieve(MODEL)).id).toBe(MODEL);
    await expect(client.models.retrieve('other')).rejects.toMatchObject({ status: 404 });
    const health = await raw('/healthz', { method: 'GET' });
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ status: 'ok', version: 'base', sha256: null });
    expect((await raw('/healthz', { method: 'GET', headers: { authorization: '' } })).status).toBe(401);
  });

  it('reports 503 while its engine says it is not healthy (the engine protocol’s health)', async () => {
    engine.closed = true;
    const health = await raw('/healthz', { method: 'GET' });
    expect(health.status).toBe(503);
    expect(JSON.parse(health.body)).toMatchObject({ status: 'unavailable', engine: { ok: false } });
  });
});

describe('serving swap (docs/design.md, invariant 5)', () => {
  it('in-flight requests finish on the old version, new ones start on the new one, none fails', async () => {
    const adapter = makeAdapterBlob('adapter bytes v3');
    const hold = gate();
    engine.holdGeneration = hold;
    const firstTokens: string[] = [];
    const oldStream = await client.chat.completions.create({ model: MODEL, messages: ask, stream: true, seed: 1 });
    const oldDone = (async () => {
      for await (const chunk of oldStream) firstTokens.push(chunk.system_fingerprint ?? '');
    })();
    while (gateway.serving.inFlight === 0) await new Promise((r) => setTimeout(r, 5));

    const swapped = gateway.serving.swapTo(adapter);
    await new Promise((r) => setTimeout(r, 20));
    // the swap waits for the in-flight request; the engine was not touched yet
    expect(engine.adapterCalls).toHaveLength(0);
    engine.holdGeneration = null;
    const newRequest = client.chat.completions.create({ model: MODEL, messages: ask, seed: 2 }).withResponse();
    await new Promise((r) => setTimeout(r, 20));
    expect(engine.calls).toHaveLength(1); // the new request waits for the swap, it does not fail

    hold.open();
    await oldDone;
    expect(new Set(firstTokens)).toEqual(new Set(['base']));
    await expect(swapped).resolves.toEqual({ version: adapter.version, sha256: adapter.sha256 });
    const { data, response } = await newRequest;
    expect(data.system_fingerprint).toBe(adapter.version);
    expect(response.headers.get('x-gatelab-version')).toBe(adapter.version);
    expect(gateway.turnLog.all().map((t) => t.version)).toEqual(['base', adapter.version]);
    expect(gateway.turnLog.all()[1]?.sha256).toBe(adapter.sha256);
  });

  it('a blob whose hash does not match never reaches the engine and the old version keeps serving', async () => {
    const adapter = makeAdapterBlob('adapter bytes');
    await expect(gateway.serving.swapTo({ ...adapter, sha256: 'f'.repeat(64), version: 'v3-ffffffff' })).rejects.toThrow(/hashes to/);
    await expect(gateway.serving.swapTo({ ...adapter, version: 'v3-00000000' })).rejects.toThrow(/does not name/);
    await expect(gateway.serving.swapTo({ ...adapter, path: '/nonexistent/blob.safetensors' })).rejects.toThrow(/cannot read/);
    expect(engine.adapterCalls).toHaveLength(0);
    expect(gateway.serving.current.version).toBe('base');
    expect((await client.chat.completions.create({ model: MODEL, messages: ask })).system_fingerprint).toBe('base');
  });

  it('an engine that fails to load leaves the previous version serving', async () => {
    const adapter = makeAdapterBlob('adapter bytes');
    engine.setAdapter = async () => {
      throw new EngineError('hash_mismatch', 'blob changed on disk');
    };
    await expect(gateway.serving.swapTo(adapter)).rejects.toThrow(/blob changed/);
    expect(gateway.serving.current).toEqual({ version: 'base', sha256: null });
    expect((await client.chat.completions.create({ model: MODEL, messages: ask })).system_fingerprint).toBe('base');
  });
});
