/**
 * The official OpenAI SDKs, JavaScript and Python, against the gateway on the
 * real embedded engine, sending what an agent (OpenClaw) sends: tools with
 * tool_choice "auto", streaming with include_usage, content as text parts,
 * max_completion_tokens. The embedded engine cannot call tools: it answers in
 * text, and a forced call or a prompt beyond the context is refused the way
 * OpenAI refuses it. The Python SDK is the one `npm run setup:python`
 * installs (src/backends/torch/requirements.txt); it runs
 * tests/python/openai_sdk_client.py and this test reads its report.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { startEmbeddedEngine } from '../src/backends/embedded/embeddedPolicy';
import type { StartedEngine } from '../src/processes/rpcEngineClient';
import { DEFAULT_MODEL_ID, startGateway, type Gateway } from '../src/surfaces/gateway/gatewayServer';
import { EngineTokenizer } from '../src/core/protocols/engineTokenizer';
import { ServingState } from '../src/run/servingState';
import { findPythonEnvironment, pythonEnvironmentReady } from '../src/processes/python/pythonEnvironment';
import type { TurnRecord } from '../src/run/turnLog';

const MODEL_DIR = process.env.GATELAB_TEST_MODEL_DIR ?? join(import.meta.dirname, '..', 'assets', 'models', 'policy');
const TOKEN = 'sdk-integration-token-0123456789';

const pythonSkip = pythonEnvironmentReady() ? null : 'no Python environment (`npm run setup:python` makes it)';
if (pythonSkip) console.warn(`openaiSdk.integration.test.ts: the Python SDK part is skipped: ${pythonSkip}`);

let engine: StartedEngine;
let gateway: Gateway;
let tokenizer: EngineTokenizer;
let client: OpenAI;
const turns: TurnRecord[] = [];

beforeAll(async () => {
  engine = await startEmbeddedEngine({ modelDir: MODEL_DIR });
  tokenizer = new EngineTokenizer(engine.client);
  gateway = await startGateway({
    engine: engine.client,
    serving: new ServingState(engine.client, { version: 'base', sha256: engine.info.baseSha256 }, engine.info.baseSha256),
    tokenizer,
    token: TOKEN,
  });
  gateway.turnLog.onAppend((turn) => void turns.push(turn));
  client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: TOKEN, maxRetries: 0 });
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await engine?.client.close();
});

const tools: OpenAI.ChatCompletionTool[] = [
  'read',
  'write',
  'edit',
  'exec',
  'process',
  'browser',
  'canvas',
  'nodes',
  'cron',
  'message',
  'gateway',
  'sessions_list',
].map((name) => ({
  type: 'function',
  function: { name, description: `The ${name} tool.`, parameters: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] } },
}));

describe('the JavaScript SDK, as OpenClaw sends', () => {
  it('streams a text reply to a request with 12 tools, a system prompt, text parts and include_usage', async () => {
    const system = 'You are a personal assistant running inside OpenClaw. '.repeat(40);
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: system },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'A baker makes 12 trays of 24 cookies and sells 150.' },
          { type: 'text', text: ' How many are left?' },
        ],
      },
    ];
    const promptTokens = await tokenizer.countPromptTokens([
      { role: 'system', content: system },
      { role: 'user', content: 'A baker makes 12 trays of 24 cookies and sells 150. How many are left?' },
    ]);
    const stream = await client.chat.completions.create({
      model: DEFAULT_MODEL_ID,
      messages,
      tools,
      tool_choice: 'auto',
      stream: true,
      stream_options: { include_usage: true },
      // OpenClaw: the context window minus the prompt.
      max_completion_tokens: tokenizer.maxPositions - promptTokens,
      seed: 5,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text.length).toBeGreaterThan(0);
    expect(chunks.some((c) => c.choices[0]?.delta.tool_calls)).toBe(false);
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage?.prompt_tokens).toBe(promptTokens);
    // The turn keeps the conversation as the engine saw it: parts joined, no tools.
    const turn = turns.at(-1);
    expect(turn?.messages.at(-1)?.content).toBe('A baker makes 12 trays of 24 cookies and sells 150. How many are left?');
    expect(turn?.toolUse).toBeUndefined();
  }, 120_000);

  it('refuses a forced call: this engine cannot make one', async () => {
    const error = await client.chat.completions
      .create({
        model: DEFAULT_MODEL_ID,
        messages: [{ role: 'user', content: 'read homework/3.txt' }],
        tools,
        tool_choice: { type: 'function', function: { name: 'read' } },
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, code: 'tool_calls_unsupported', param: 'tool_choice' });
  });
});

type PythonError = { status: number; code: string | null; param: string | null; type: string; message: string };
type PythonReport = {
  sdk: string;
  stream: {
    text: string;
    first_role: string | null;
    finish_reasons: string[];
    tool_call_deltas: number;
    last_choices: number;
    usage: Record<string, number> | null;
    ids: number;
  };
  whole: { content: string | null; tool_calls: unknown; finish_reason: string; usage: Record<string, number> };
  required: PythonError | null;
  overflow: PythonError | null;
};

function runPythonClient(): Promise<PythonReport> {
  const { python } = findPythonEnvironment();
  const script = join(import.meta.dirname, 'python', 'openai_sdk_client.py');
  const env = {
    ...process.env,
    GATELAB_GATEWAY_URL: gateway.url,
    GATELAB_GATEWAY_TOKEN: TOKEN,
    GATELAB_GATEWAY_MODEL: DEFAULT_MODEL_ID,
    GATELAB_GATEWAY_CONTEXT: String(tokenizer.maxPositions),
  };
  return new Promise((resolve, reject) => {
    execFile(python, [script], { env, timeout: 300_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${script} failed: ${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as PythonReport);
    });
  });
}

describe.skipIf(pythonSkip !== null)('the Python SDK', () => {
  it('streams and answers with tools offered, and is refused a forced call and a context overflow', async () => {
    const report = await runPythonClient();
    expect(report.sdk).toMatch(/^\d+\.\d+\.\d+$/);

    // Streamed: the role first, text, one finish, then a usage chunk with no choices, all under one id.
    expect(report.stream.first_role).toBe('assistant');
    expect(report.stream.text.length).toBeGreaterThan(0);
    expect(report.stream.tool_call_deltas).toBe(0);
    expect(report.stream.finish_reasons).toHaveLength(1);
    expect(['stop', 'length']).toContain(report.stream.finish_reasons[0]);
    expect(report.stream.last_choices).toBe(0);
    expect(report.stream.ids).toBe(1);
    // The same seed without streaming: the same reply and usage.
    expect(report.whole.content).toBe(report.stream.text);
    expect(report.whole.tool_calls).toBeNull();
    expect(report.whole.finish_reason).toBe(report.stream.finish_reasons[0]);
    expect(report.stream.usage).toEqual(report.whole.usage);

    expect(report.required).toMatchObject({ status: 400, code: 'tool_calls_unsupported', param: 'tool_choice', type: 'invalid_request_error' });
    expect(report.overflow).toMatchObject({ status: 400, code: 'context_length_exceeded', param: 'messages', type: 'invalid_request_error' });
    expect(report.overflow?.message).toContain(`maximum context length is ${tokenizer.maxPositions} tokens`);
  }, 300_000);
});
