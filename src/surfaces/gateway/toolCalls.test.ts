/**
 * What a current agent sends (OpenClaw: streaming with usage, a dozen tools
 * with tool_choice auto, max_completion_tokens, content as text parts, tool
 * turns in the history), driven by the official `openai` client against the
 * gateway with engine test doubles: one that cannot call tools (as the
 * embedded engine) and one that can (as vLLM). The real engines are tested
 * in tests/gateway.integration.test.ts and tests/vllmTools.integration.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { startGateway, type Gateway } from './gatewayServer';
import { ServingState } from '../../run/servingState';
import { EngineDouble, ToolEngineDouble, WordTokenizerDouble } from './testing/engineDouble';
import type { TurnRecord } from '../../run/turnLog';
import { toolCallDeltas } from './chatCompletionResponse';

const TOKEN = 'test-token-0123456789abcdef';
const MODEL = 'gatelab-policy';
const CONTEXT = 4096;

/** Twelve function tools, as OpenClaw offers (read, write, exec, …). */
const agentTools: ChatCompletionTool[] = Array.from({ length: 12 }, (_, i) => ({
  type: 'function',
  function: {
    name: i === 0 ? 'get_weather' : `tool_${i}`,
    description: `Tool number ${i}`,
    parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] },
  },
}));

const systemPrompt = Array.from({ length: 300 }, (_, i) => `Rule ${i}: be precise.`).join('\n');

/** An OpenClaw turn: a long system prompt, user content once as a string and once as text parts. */
const agentMessages: ChatCompletionMessageParam[] = [
  { role: 'system', content: systemPrompt },
  { role: 'user', content: 'hello there' },
  { role: 'assistant', content: 'hi, how can I help' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'what is the weather' },
      { type: 'text', text: ' in Paris' },
    ],
  },
];

/** A history where the model called a tool and the tool answered. */
const toolHistory: ChatCompletionMessageParam[] = [
  { role: 'user', content: 'what is the weather in Paris' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
  { role: 'tool', tool_call_id: 'call_a', content: [{ type: 'text', text: '18 C and sunny' }] },
];

let gateway: Gateway;
let client: OpenAI;

async function serve(engine: EngineDouble): Promise<void> {
  gateway = await startGateway({
    engine,
    serving: new ServingState(engine, { version: 'base', sha256: null }),
    tokenizer: new WordTokenizerDouble(CONTEXT),
    token: TOKEN,
  });
  client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: TOKEN, maxRetries: 0 });
}

afterEach(async () => {
  await gateway.close();
});

describe('an engine that cannot call tools (the embedded one)', () => {
  let engine: EngineDouble;
  beforeEach(async () => {
    engine = new EngineDouble();
    await serve(engine);
  });

  it("accepts OpenClaw's request and answers in text, streamed, with a final usage chunk", async () => {
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: agentMessages,
      tools: agentTools,
      tool_choice: 'auto',
      stream: true,
      stream_options: { include_usage: true },
      // OpenClaw sends the rest of the context as the limit.
      max_completion_tokens: 200,
      seed: 3,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text.length).toBeGreaterThan(0);
    expect(chunks.some((c) => c.choices[0]?.delta.tool_calls)).toBe(false);
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe('stop');
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage?.completion_tokens).toBeGreaterThan(0);
    // The engine got the text conversation, parts joined, and no tools.
    const call = engine.calls[0];
    expect(call?.messages.at(-1)).toEqual({ role: 'user', content: 'what is the weather in Paris' });
    expect(call?.messages[0]?.content).toBe(systemPrompt);
    expect(call).not.toHaveProperty('toolUse');
    expect(call?.sampling.maxTokens).toBe(200);
  });

  it('accepts tool_choice "none" and records no tools in the turn', async () => {
    const turns: TurnRecord[] = [];
    gateway.turnLog.onAppend((turn) => void turns.push(turn));
    const completion = await client.chat.completions.create({ model: MODEL, messages: agentMessages, tools: agentTools, tool_choice: 'none' });
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
    expect(turns[0]?.toolUse).toBeUndefined();
  });

  it('refuses a forced call and a history with tool turns, rather than pretend', async () => {
    for (const tool_choice of ['required', { type: 'function', function: { name: 'get_weather' } }] as const) {
      await expect(client.chat.completions.create({ model: MODEL, messages: agentMessages, tools: agentTools, tool_choice })).rejects.toMatchObject({
        status: 400,
        code: 'tool_calls_unsupported',
        param: 'tool_choice',
      });
    }
    await expect(client.chat.completions.create({ model: MODEL, messages: toolHistory, tools: agentTools })).rejects.toMatchObject({
      status: 400,
      code: 'tool_calls_unsupported',
      param: 'messages.1',
    });
    expect(engine.calls).toHaveLength(0);
  });
});

describe('an engine that can call tools (as vLLM)', () => {
  let engine: ToolEngineDouble;
  beforeEach(async () => {
    engine = new ToolEngineDouble();
    await serve(engine);
  });

  it("returns a call in OpenAI's form: message.tool_calls, null content, finish_reason tool_calls", async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: agentMessages,
      tools: agentTools,
      tool_choice: 'auto',
      max_completion_tokens: 50,
    });
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBeNull();
    expect(choice?.message.tool_calls).toEqual([{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]);
    // The engine got the tools and the choice as the engine protocol says them.
    const request = engine.toolCalls[0];
    expect(request?.toolUse.tools).toHaveLength(12);
    expect(request?.toolUse.tools[0]).toEqual(agentTools[0]?.type === 'function' ? agentTools[0].function : null);
    expect(request?.toolUse.choice).toBe('auto');
    expect(request?.toolUse.parallelToolCalls).toBeNull();
    // Prompt counted with the tools (one token each in this double).
    expect(completion.usage?.prompt_tokens).toBe(
      request ? request.messages.reduce((n, m) => n + 2 + m.content.split(/\s+/).filter(Boolean).length, 0) + 1 + 12 : -1,
    );
  });

  it('ends a call forced by naming the function with finish_reason stop, as OpenAI does', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: agentMessages,
      tools: agentTools,
      tool_choice: { type: 'function', function: { name: 'tool_3' } },
      parallel_tool_calls: false,
    });
    expect(completion.choices[0]?.finish_reason).toBe('stop');
    expect(completion.choices[0]?.message.tool_calls?.[0]).toMatchObject({ type: 'function', function: { name: 'tool_3' } });
    expect(engine.toolCalls[0]?.toolUse).toMatchObject({ choice: { name: 'tool_3' }, parallelToolCalls: false });
  });

  it("streams the call in OpenAI's pieces: index, id, type and name first, then the arguments split over chunks; the SDK assembles it", async () => {
    engine.preamble = 'let me check';
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: agentMessages,
      tools: agentTools,
      tool_choice: 'required',
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    // One piece of one call per chunk, as api.openai.com streams them.
    expect(chunks.every((c) => (c.choices[0]?.delta.tool_calls?.length ?? 0) <= 1)).toBe(true);
    const deltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(deltas[0]).toEqual({ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } });
    const rest = deltas.slice(1);
    expect(rest.length).toBeGreaterThan(2);
    for (const piece of rest) expect(Object.keys(piece).sort()).toEqual(['function', 'index']);
    expect(rest.every((piece) => piece.index === 0 && Object.keys(piece.function ?? {}).join() === 'arguments')).toBe(true);
    expect(rest.map((piece) => piece.function?.arguments).join('')).toBe('{"city":"Paris"}');
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('let me check');
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage?.total_tokens).toBeGreaterThan(0);

    // The SDK's own stream helper builds the same message from the chunks.
    const runner = client.chat.completions.stream({ model: MODEL, messages: agentMessages, tools: agentTools, tool_choice: 'required' });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]?.message.tool_calls?.[0]).toMatchObject({ id: 'call_2', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } });
    expect(final.choices[0]?.message.content).toBe('let me check');
  });

  it('passes the tool turns of the history through, and records tools and calls in the turn', async () => {
    const turns: TurnRecord[] = [];
    gateway.turnLog.onAppend((turn) => void turns.push(turn));
    await client.chat.completions.create({ model: MODEL, messages: toolHistory, tools: agentTools, tool_choice: 'auto' });
    expect(engine.toolCalls[0]?.messages).toEqual([
      { role: 'user', content: 'what is the weather in Paris' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
      { role: 'tool', content: '18 C and sunny', toolCallId: 'call_a' },
    ]);
    expect(turns[0]?.toolUse?.tools).toHaveLength(12);
    expect(turns[0]?.response.toolCalls).toEqual([{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }]);
    expect(turns[0]?.messages).toEqual(engine.toolCalls[0]?.messages);
  });

  it('sends a history with tool turns but no tools offered to the tool-calling engine, which answers in text', async () => {
    const completion = await client.chat.completions.create({ model: MODEL, messages: toolHistory });
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
    expect(engine.toolCalls[0]?.toolUse).toEqual({ tools: [], choice: 'none', parallelToolCalls: null });
  });
});

describe('streamed calls in pieces', () => {
  it('gives each call its head, then its arguments in pieces that join back to the same string, calls in order by index', () => {
    const calls = [
      { id: 'call_a', name: 'read', arguments: '{"path": "/tmp/é 😀/notes.txt", "limit": 20}' },
      { id: 'call_b', name: 'noop', arguments: '{}' },
    ];
    const deltas = toolCallDeltas(calls);
    expect(deltas[0]).toEqual({ index: 0, id: 'call_a', type: 'function', function: { name: 'read', arguments: '' } });
    const second = deltas.findIndex((d) => 'id' in d && d.id === 'call_b');
    expect(deltas[second]).toEqual({ index: 1, id: 'call_b', type: 'function', function: { name: 'noop', arguments: '' } });
    const first = deltas.slice(1, second);
    expect(first.length).toBeGreaterThan(5);
    expect(first.every((d) => !('id' in d) && d.index === 0)).toBe(true);
    expect(first.map((d) => d.function.arguments).join('')).toBe(calls[0]!.arguments);
    // No piece splits a code point (a surrogate pair stays whole).
    expect(first.some((d) => d.function.arguments.includes('😀'))).toBe(true);
    expect(
      deltas
        .slice(second + 1)
        .map((d) => d.function.arguments)
        .join(''),
    ).toBe('{}');
    expect(toolCallDeltas([{ id: 'c', name: 'f', arguments: '' }])).toEqual([{ index: 0, id: 'c', type: 'function', function: { name: 'f', arguments: '' } }]);
  });
});

describe('refusals, in OpenAI’s shape and words', () => {
  beforeEach(async () => {
    await serve(new ToolEngineDouble());
  });

  const base = { model: MODEL, messages: agentMessages };
  const fn = (parameters: Record<string, unknown>, name = 'f'): ChatCompletionTool => ({ type: 'function', function: { name, parameters } });

  it('refuses tool_choice and parallel_tool_calls without tools, and a tool_choice naming no offered function', async () => {
    await expect(client.chat.completions.create({ ...base, tool_choice: 'auto' })).rejects.toMatchObject({ status: 400, param: 'tool_choice' });
    await expect(client.chat.completions.create({ ...base, parallel_tool_calls: true })).rejects.toMatchObject({ status: 400, param: 'parallel_tool_calls' });
    await expect(
      client.chat.completions.create({ ...base, tools: agentTools, tool_choice: { type: 'function', function: { name: 'nope' } } }),
    ).rejects.toMatchObject({
      status: 400,
      param: 'tool_choice.function.name',
    });
    const bad = await client.chat.completions.create({ ...base, tools: agentTools, tool_choice: 'sometimes' as 'auto' }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ status: 400, param: 'tool_choice' });
    expect((bad as Error).message).toMatch(/"none", "auto", "required"/);
  });

  it('refuses invalid tool definitions with a clear 400 naming the spot', async () => {
    const cases: Array<[ChatCompletionTool[], string, RegExp]> = [
      [[fn({ type: 'string' })], 'tools.0.function.parameters', /type: "object"/],
      [[fn({ type: 'object', properties: [] })], 'tools.0.function.parameters', /parameters\.properties must be an object/],
      [
        [fn({ type: 'object', properties: { a: { type: 'text' } } })],
        'tools.0.function.parameters',
        /parameters\.properties\.a\.type must name JSON Schema types/,
      ],
      [[fn({ type: 'object', required: 'a' })], 'tools.0.function.parameters', /required must be an array/],
      [[fn({ type: 'object' }, 'has space')], 'tools.0.function.name', /letters, digits/],
      [[fn({ type: 'object' }, 'twice'), fn({ type: 'object' }, 'twice')], 'tools.1.function.name', /duplicates/],
      [[], 'tools', /./],
    ];
    for (const [tools, param, message] of cases) {
      const error = await client.chat.completions.create({ ...base, tools }).catch((e: unknown) => e);
      expect(error, param).toMatchObject({ status: 400, param, code: 'invalid_value' });
      expect((error as Error).message).toMatch(message);
    }
    const custom = await client.chat.completions.create({ ...base, tools: [{ type: 'custom', custom: { name: 'x' } }] }).catch((e: unknown) => e);
    expect(custom).toMatchObject({ status: 400 });
    expect((custom as Error).message).toMatch(/only 'function' tools are supported/);
  });

  it('refuses tool results that answer no call, and calls left unanswered', async () => {
    const orphan: ChatCompletionMessageParam[] = [
      { role: 'user', content: 'hi' },
      { role: 'tool', tool_call_id: 'call_x', content: 'result' },
    ];
    await expect(client.chat.completions.create({ model: MODEL, messages: orphan })).rejects.toMatchObject({ status: 400, param: 'messages.1.tool_call_id' });
    const unanswered = [...toolHistory.slice(0, 2), { role: 'user' as const, content: 'well?' }];
    const error = await client.chat.completions.create({ model: MODEL, messages: unanswered }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, param: 'messages.1' });
    expect((error as Error).message).toMatch(/call_a/);
    const noContent: ChatCompletionMessageParam[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null },
      { role: 'user', content: 'hi' },
    ];
    await expect(client.chat.completions.create({ model: MODEL, messages: noContent })).rejects.toMatchObject({ status: 400, param: 'messages.1.content' });
  });

  it('refuses non-text content parts, both max_tokens and max_completion_tokens, and unknown fields by name', async () => {
    const image: ChatCompletionMessageParam[] = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:,' } }] }];
    const error = await client.chat.completions.create({ model: MODEL, messages: image }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, param: 'messages.0.content' });
    expect((error as Error).message).toMatch(/text parts/);
    await expect(client.chat.completions.create({ ...base, max_tokens: 5, max_completion_tokens: 5 })).rejects.toMatchObject({
      status: 400,
      param: 'max_tokens',
      code: 'invalid_parameter_combination',
    });
    const unknown = await client.chat.completions.create({ ...base, functions: [{ name: 'f' }] }).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ status: 400 });
    expect((unknown as Error).message).toMatch(/unrecognized request argument\(s\): functions/);
  });

  it("refuses a prompt beyond the context with OpenAI's context_length_exceeded, as OpenClaw's limit of 1 meets it", async () => {
    const long = 'word '.repeat(CONTEXT);
    await expect(
      client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: long }], tools: agentTools, max_completion_tokens: 1, stream: true }),
    ).rejects.toMatchObject({ status: 400, code: 'context_length_exceeded', param: 'messages', type: 'invalid_request_error' });
  });
});
